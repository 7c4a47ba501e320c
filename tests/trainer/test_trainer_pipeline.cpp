// Tests of amxqa-train's pipeline around the model: recipe parsing, data
// streaming and packing, the SQuAD JSON reader, example building and scoring.
#include <doctest/doctest.h>
#include <zlib.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <algorithm>
#include <cctype>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <unistd.h>
#include <cmath>
#include <fstream>

#include "cli/commands.h"
#include "gz_text.h"
#include "probes/probes.h"
#include "report/metrics_log.h"
#include "report/model_card.h"
#include "report/metrics_plot.h"
#include "stages/capi_model.h"
#include "stages/cloze.h"
#include "stages/run_context.h"
#include "stages/sft_data.h"
#include "stages/sft_prefetch.h"
#include "stages/tokenizer_file.h"
#include "stages/unanswerable.h"
#include "data/pieces.h"
#include "recipe/recipe.h"
#include "recipe/run_config.h"
#include "json_members.h"
#include "squad_file.h"
#include "squad/squad_examples.h"
#include "squad_metrics.h"
#include "tokenizer/bpe_train.h"
#include "format/owned_tokenizer.h"
#include "run_trainer.h"
#include "toy_moe_model.h"

using namespace amxqa;
using namespace amxqa::train;
using namespace amxqa::eval;

namespace {

// A small trained tokenizer so spans cross real merges, not only bytes.
const OwnedTokenizer& test_tokenizer() {
  static OwnedTokenizer tok = [] {
    std::vector<std::string> docs;
    for (int i = 0; i < 20; ++i) {
      docs.push_back("The Denver Broncos defeated the Carolina Panthers in Super Bowl 50, held in 2016 at "
                     "Levi's Stadium in Santa Clara, California.");
      docs.push_back("Beyonce Giselle Knowles-Carter is an American singer, songwriter and actress.");
    }
    return make_owned_tokenizer(train_bpe(docs, 400), 400);
  }();
  return tok;
}

std::string temp_path(const char* name) {
  return std::string("/tmp/amxqa-pipeline-test-") + std::to_string(::getpid()) + "-" + name;
}

void copy_file(const std::string& from, const std::string& to) {
  std::ofstream(to, std::ios::binary) << std::ifstream(from, std::ios::binary).rdbuf();
}

std::string trim_ws(const std::string& s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return s.substr(b, e - b);
}

}  // namespace

TEST_SUITE("unit") {

TEST_CASE("squad file: SQuAD-like snippet with escapes and unicode") {
  const std::string text = R"({"version": "1.1", "data": [{"title": "Caf\u00e9",
    "paragraphs": [{"context": "He said \"hi\"\\n then\tleft. \ud83d\ude00 \u00e9t\u00e9",
      "qas": [{"id": "q1", "question": "What did he say?",
               "answers": [{"text": "\"hi\"", "answer_start": 8}, {"text": "hi", "answer_start": 9.0}]},
              {"id": "q2", "question": "Unanswerable?", "answers": [], "is_impossible": true}]}]}]})";
  auto arts = parse_squad(text);
  REQUIRE(arts.size() == 1);
  CHECK(arts[0].title == "Caf\xC3\xA9");
  CHECK(arts[0].paragraphs[0].context == "He said \"hi\"\\n then\tleft. \xF0\x9F\x98\x80 \xC3\xA9t\xC3\xA9");
  REQUIRE(arts[0].paragraphs[0].qas.size() == 1);
  const SquadQa& qa = arts[0].paragraphs[0].qas[0];
  CHECK(qa.answers == std::vector<std::string>{"\"hi\"", "hi"});
  CHECK(qa.answer_starts[1] == 9);
  CHECK(count_questions(arts) == 1);
}

TEST_CASE("squad file: malformed input throws, never crashes") {
  const char* bad[] = {"", "{", "{\"a\":}", "[1,]", "\"abc", "\"\\x\"", "\"\\u12\"", "tru", "01x",
                       "{\"a\":1} x", "[\"\x01\"]", "{1:2}", "-", "1e", "{\"data\": [\"\\ud800x\"]}"};
  for (const char* b : bad) CHECK_THROWS_AS(parse_squad(b), std::runtime_error);
  // Deep nesting costs memory, not stack (nlohmann parses and frees iteratively).
  CHECK_THROWS_AS(parse_squad(std::string(100000, '[')), std::runtime_error);
  std::string deep_ok = "{\"data\": " + std::string(100000, '[') + std::string(100000, ']') + "}";
  CHECK(parse_squad(deep_ok).empty());  // its one "article" is not an object
  // A structurally valid document that is not SQuAD is refused.
  CHECK_THROWS(parse_squad("{\"data\": 3}"));
  CHECK(parse_squad("{\"data\": [{\"paragraphs\": [{\"context\": 5}]}]}").at(0).paragraphs.empty());
}

TEST_CASE("squad: answer bytes map to a passage token span that covers exactly the answer") {
  const TokenizerView& tok = test_tokenizer().view;
  const std::string passage =
      "The Denver Broncos defeated the Carolina Panthers in Super Bowl 50, held in 2016 at Levi's Stadium in "
      "Santa Clara, California.";
  const char* answers[] = {"Denver Broncos", "Carolina Panthers", "Super Bowl 50", "2016", "Levi's Stadium",
                           "Santa Clara, California", "The Denver Broncos", "California."};
  for (const char* a : answers) {
    CAPTURE(a);
    size_t b = 0, e = 0;
    REQUIRE(locate_answer(passage, "Who won?", std::string(" ") + a + " ", -1, &b, &e));
    CHECK(passage.substr(b, e - b) == a);
    Example ex;
    REQUIRE(build_answer_example(tok, "Who won?", passage, b, e, 4096, &ex));
    // Targets: the covering passage tokens, then EOT; their mask bits are set.
    REQUIRE(ex.tokens.back() == kEot);
    size_t first_target = 0;
    while (!ex.mask[first_target]) ++first_target;
    CHECK(ex.tokens[first_target] == kAns);
    std::vector<uint32_t> span(ex.tokens.begin() + first_target + 1, ex.tokens.end() - 1);
    CHECK(trim_ws(decode_ids(tok, span.data(), span.size())) == a);
    // Every target token is a passage token (extractive by construction).
    for (uint32_t id : span) {
      bool in_passage = false;
      for (uint32_t p = ex.passage_begin; p < ex.passage_end; ++p) in_passage |= ex.tokens[p] == id;
      CHECK(in_passage);
    }
    size_t masked = 0;
    for (uint8_t m : ex.mask) masked += m;
    CHECK(masked == span.size() + 1);
    CHECK(ex.mask.size() == ex.tokens.size());
    CHECK(ex.tokens[0] == kBos);
  }
  // An answer inside a word is covered by the word's token(s): a superset.
  size_t b = passage.find("arolin"), e = b + 6;
  Example ex;
  REQUIRE(build_answer_example(tok, "q", passage, b, e, 4096, &ex));
  CHECK(!build_answer_example(tok, "q", passage, 10, 10, 4096, &ex));
  CHECK(!build_answer_example(tok, "q", passage, 0, passage.size() + 1, 4096, &ex));
  CHECK(!build_answer_example(tok, "q", passage, 0, 5, 10, &ex));  // too long for max_tokens
}

TEST_CASE("squad: repeated answers prefer the occurrence near the question's words") {
  const std::string ctx =
      "In 1850 the town was founded by farmers. Much later, after the railway arrived and the mills opened, "
      "the cathedral was completed in 1850 by the bishop of the diocese, who had raised the money abroad over "
      "many long years of travel through Europe and Asia. Nothing else of note happened.";
  size_t b = 0, e = 0;
  REQUIRE(locate_answer(ctx, "When was the cathedral completed by the bishop?", "1850", 3, &b, &e));
  CHECK(b == ctx.find("1850", 10));
  REQUIRE(locate_answer(ctx, "When was the town founded?", "1850", 3, &b, &e));
  CHECK(b == ctx.find("1850"));
  CHECK(!locate_answer(ctx, "q", "1851", -1, &b, &e));
  CHECK(!locate_answer(ctx, "q", "   ", -1, &b, &e));
}

TEST_CASE("squad: abstention pairs never pair a paragraph that contains an answer") {
  std::vector<SquadArticle> arts(2);
  const char* contexts[] = {"Paris is the capital of France.", "The river Seine flows through PARIS.",
                            "Lyon is known for its food.", "Marseille is a port on the sea."};
  for (int a = 0; a < 2; ++a) {
    for (const char* c : contexts) {
      SquadParagraph p;
      p.context = c;
      SquadQa qa;
      qa.question = "What is the capital?";
      qa.answers = {"Paris", "the capital"};
      qa.answer_starts = {0, -1};
      p.qas.push_back(qa);
      p.qas.push_back(qa);
      arts[a].paragraphs.push_back(p);
    }
  }
  auto pairs = abstain_pairs(arts, 7);
  CHECK(!pairs.empty());
  std::set<size_t> others;
  for (const auto& pr : pairs) {
    CHECK(pr.other != pr.paragraph);
    const auto& q = arts[pr.article].paragraphs[pr.paragraph].qas[pr.qa];
    const std::string& other = arts[pr.article].paragraphs[pr.other].context;
    CHECK(!contains_any_answer(other, q.answers));  // case-insensitive: "PARIS" counts
    others.insert(pr.other);
  }
  CHECK(others.count(0) == 0);
  CHECK(others.count(1) == 0);
  CHECK(abstain_pairs(arts, 7).size() == pairs.size());  // deterministic
  Example ex;
  REQUIRE(build_abstain_example(test_tokenizer().view, "What is the capital?", contexts[2], 4096, &ex));
  CHECK(ex.tokens[ex.tokens.size() - 2] == kAbstain);
  CHECK(ex.tokens.back() == kEot);
  CHECK(ex.tokens[ex.tokens.size() - 3] == kAns);
  CHECK(ex.abstain);
}

TEST_CASE("squad metrics: standard normalisation, EM and F1") {
  CHECK(normalize_answer("The  Denver Broncos!") == "denver broncos");
  CHECK(exact_match("The  Denver Broncos!", "denver broncos") == 1.0);
  CHECK(exact_match("an apple", "Apple.") == 1.0);
  CHECK(exact_match("Broncos", "Denver Broncos") == 0.0);
  CHECK(f1_score("Broncos", "Denver Broncos") == doctest::Approx(2 * 1.0 * 0.5 / 1.5));
  CHECK(f1_score("the cat sat", "a cat sat down") == doctest::Approx(0.8));
  CHECK(f1_score("", "x") == 0.0);
  CHECK(f1_score("", "") == 0.0);  // official v1.1: no common token
  CHECK(best_exact_match("Santa Clara", {"Levi's Stadium", "Santa Clara, California", "santa clara"}) == 1.0);
  CHECK(best_f1("Santa Clara", {"Levi's Stadium", "Santa Clara, California"}) == doctest::Approx(0.8));
  CHECK(normalize_answer("theater anthem") == "theater anthem");  // only whole-word articles
}

TEST_CASE("recipe: sections, comments, typed values, errors") {
  const char* text =
      "# comment\nname = tiny   # trailing comment\nseed = 3\n[arch]\nd_model = 64\nlayer_kinds = lin, swa\n"
      "vocab_size = 512\n[pretrain]\nsteps = 2k\nlr = 3e-3\nshuffle_route_stat = yes\n[data]\n"
      "files = ${AMXQA_DATA}/corpus/a.txt.gz  rel/b.gz /abs/c.gz\n";
  Recipe r = Recipe::parse(text, "t");
  r.set_repo_root("/repo");
  CHECK(r.str("name") == "tiny");
  CHECK(r.integer("seed", 0) == 3);
  CHECK(r.integer("pretrain.steps", 0) == 2000);
  CHECK(r.number("pretrain.lr", 0) == doctest::Approx(3e-3));
  CHECK(r.boolean("pretrain.shuffle_route_stat", false));
  CHECK(r.integer("missing", 42) == 42);
  CHECK(r.list("arch.layer_kinds") == std::vector<std::string>{"lin", "swa"});
  ::unsetenv("AMXQA_DATA");
  auto files = r.paths("data.files");
  REQUIRE(files.size() == 3);
  CHECK(files[0] == "/repo/../shared/data/corpus/a.txt.gz");
  CHECK(files[1] == "/repo/rel/b.gz");
  CHECK(files[2] == "/abs/c.gz");
  ::setenv("AMXQA_DATA", "/data", 1);
  CHECK(r.paths("data.files")[0] == "/data/corpus/a.txt.gz");
  ::unsetenv("AMXQA_DATA");

  RunConfig c = read_run_config(r);
  CHECK(c.name == "tiny");
  CHECK(c.arch.n_layers == 2);
  CHECK(c.arch.layer_kinds == std::vector<uint8_t>{kLayerLin, kLayerSwa});
  CHECK(c.pretrain.steps == 2000);
  CHECK(c.pretrain.loss.shuffle_route_stat);
  CHECK(c.sft_qa.loss.kind == LossKind::extractive);
  CHECK(c.sft_abstain.unanswerable_frac == doctest::Approx(0.3));

  CHECK_THROWS_WITH(Recipe::parse("a = 1\na = 2\n", "t"), "t:2: duplicate key 'a'");
  CHECK_THROWS(Recipe::parse("[arch\n", "t"));
  CHECK_THROWS(Recipe::parse("novalue\n", "t"));
  CHECK_THROWS(Recipe::parse("x = 1.5\n", "t").integer("x", 0));
  CHECK_THROWS(Recipe::parse("x = maybe\n", "t").boolean("x", false));
  CHECK_THROWS(read_run_config(Recipe::parse("[arch]\nlayer_kinds = lin mlp\n", "t")));
}

TEST_CASE("recipe inheritance: base = NAME, key by key, and the committed chain") {
  const std::string dir = std::string(AMXQA_SOURCE_DIR) + "/trainer/recipes/";
  const Recipe r = Recipe::load(dir + "qm-ptr-long.recipe");  // qm-long <- qm-ptr <- qm-ptr-long
  CHECK(r.name() == "qm-ptr-long");
  CHECK(r.str("name") == "qm-ptr-long");
  CHECK_FALSE(r.has("base"));
  CHECK(r.boolean("arch.start_pointer", false));   // from qm-ptr
  CHECK(r.boolean("arch.question_match", false));  // from qm-long
  CHECK(r.integer("sft_qa.steps", 0) == 8500);     // its own
  CHECK(r.integer("pretrain.steps", 0) == 1200);   // from qm-long
  CHECK(r.str("outputs.dir") == "trainer/runs/qm-ptr-long");
  CHECK(Recipe::parse(r.dump(), "again").integer("sft_qa.steps", 0) == 8500);  // dumps flat
  const Recipe v2 = Recipe::load(dir + "qa-v2-from-v1.recipe");
  CHECK(v2.has("init.model"));
  CHECK(v2.number("sft_qa.unanswerable_frac", 0) == doctest::Approx(0.4));
  CHECK(read_run_config(v2).arch.start_pointer);
  // The planned long run: the paper's 259M tokens, its MoE arm inside the budget law.
  const RunConfig paper = read_run_config(Recipe::load(dir + "paper-pretrain.recipe"));
  CHECK(paper.pretrain.steps * paper.pretrain.batch_tokens == 258998272ull);
  CHECK(paper.arch.moe_experts <= budget_law_max_experts(paper.arch, 259e6, paper.tau));

  // A cycle is an error, not a hang.
  const std::string tmp = "/tmp/amxqa-recipe-cycle-" + std::to_string(::getpid());
  std::ofstream(tmp + "-a.recipe") << "base = " << tmp.substr(tmp.rfind('/') + 1) << "-b\n";
  std::ofstream(tmp + "-b.recipe") << "base = " << tmp.substr(tmp.rfind('/') + 1) << "-a\n";
  CHECK_THROWS(Recipe::load(tmp + "-a.recipe"));
  std::remove((tmp + "-a.recipe").c_str());
  std::remove((tmp + "-b.recipe").c_str());
}

TEST_CASE("budget law: E <= N k / (tau P_e)") {
  ArchConfig a;
  a.d_model = 256;
  a.moe_d_ff = 160;
  a.moe_top_k = 4;
  CHECK(expert_params(a) == 2u * 256 * 160);
  // 259M tokens, tau 10: 259e6 * 4 / (10 * 81920) ~= 1264 experts.
  CHECK(budget_law_max_experts(a, 259e6, 10) == doctest::Approx(1264.6).epsilon(0.001));
}

TEST_CASE("data: gzip paragraphs, BOS-led pieces, deterministic split and order") {
  const std::string path = temp_path("corpus.txt.gz");
  {
    gzFile f = gzopen(path.c_str(), "wb");
    REQUIRE(f);
    const char* text = "First para line one\nline two.\n\n\nSecond paragraph.\n \nThird\r\nparagraph\n";
    gzwrite(f, text, static_cast<unsigned>(std::strlen(text)));
    gzclose(f);
  }
  std::vector<std::string> paras;
  for_each_paragraph(path, 0, true, [&](const std::string& p) { paras.push_back(p); return true; });
  CHECK(paras == std::vector<std::string>{"First para line one line two.", "Second paragraph.", "Third paragraph"});
  paras.clear();
  for_each_paragraph(path, 0, false, [&](const std::string& p) { paras.push_back(p); return paras.size() < 1; });
  CHECK(paras == std::vector<std::string>{"First para line one\nline two."});
  CHECK(read_gz(path).size() == std::strlen("First para line one\nline two.\n\n\nSecond paragraph.\n \nThird\r\nparagraph\n"));
  CHECK(data_digest(path).find("fnv1a64-1MiB=") != std::string::npos);

  CorpusOptions opt;
  opt.files = {path};
  opt.seq_len = 4;
  PieceStore a = build_pieces(test_tokenizer().view, opt);
  PieceStore b = build_pieces(test_tokenizer().view, opt);
  CHECK(a.tokens == b.tokens);
  CHECK(a.offsets == b.offsets);
  REQUIRE(a.size() > 3);
  for (size_t i = 0; i < a.size(); ++i) {
    size_t n = 0;
    const uint32_t* p = a.piece(i, &n);
    CHECK(p[0] == kBos);
    CHECK(n >= 2);
    CHECK(n <= 4);
    for (size_t t = 1; t < n; ++t) CHECK(p[t] >= kByteBase);
  }
  // Joining paragraphs up to min_doc_bytes makes fewer, longer documents.
  opt.seq_len = 1024;
  PieceStore one = build_pieces(test_tokenizer().view, opt);
  opt.min_doc_bytes = 1000;
  PieceStore joined = build_pieces(test_tokenizer().view, opt);
  CHECK(one.size() == 3);
  CHECK(joined.size() == 1);

  const std::string cache = temp_path("pieces.bin");
  save_pieces(cache, a, 99);
  PieceStore c;
  CHECK(!load_pieces(cache, 98, c));
  REQUIRE(load_pieces(cache, 99, c));
  CHECK(c.tokens == a.tokens);
  std::remove(cache.c_str());
  std::remove(path.c_str());

  DataSplit s1 = split_pieces(100, 10, 5), s2 = split_pieces(100, 10, 5), s3 = split_pieces(100, 10, 6);
  CHECK(s1.val == s2.val);
  CHECK(s1.val != s3.val);
  CHECK(s1.val.size() == 10);
  CHECK(s1.train.size() == 90);
  for (uint32_t v : s1.val) CHECK(!std::binary_search(s1.train.begin(), s1.train.end(), v));
  PieceOrder o1(s1.train, 3), o2(s1.train, 3);
  std::set<uint32_t> epoch0, epoch1;
  std::vector<uint32_t> seq0, seq1;
  for (uint64_t i = 0; i < 90; ++i) { epoch0.insert(o1.at(i)); seq0.push_back(o1.at(i)); }
  for (uint64_t i = 90; i < 180; ++i) { epoch1.insert(o1.at(i)); seq1.push_back(o1.at(i)); }
  CHECK(epoch0.size() == 90);  // each epoch is a permutation of the training pieces
  CHECK(epoch1.size() == 90);
  CHECK(seq0 != seq1);         // reshuffled per epoch
  CHECK(o2.at(137) == o1.at(137));  // random access: a resumed cursor sees the same piece
}

TEST_CASE("report: log lines round-trip through nlohmann-json; the plot reads them") {
  const LogLine j = {{"stage", "pretrain"}, {"step", uint64_t(3)}, {"loss", 4.5}, {"bad", std::nan("")},
                     {"text", std::string("a\"b\\c\n\x01\xC3\xA9")}, {"torn_utf8", std::string("x\xC3")}};
  const std::string line = amxqa::eval::dump_json(j);
  CHECK(line.find('\n') == std::string::npos);
  CHECK(line.find("{\"stage\":\"pretrain\",\"step\":3") == 0);  // keys in the order written
  const nlohmann::json v = nlohmann::json::parse(line);
  CHECK(v["stage"] == "pretrain");
  CHECK(v["loss"].get<double>() == doctest::Approx(4.5));
  CHECK(v["bad"].is_null());
  CHECK(v["text"] == "a\"b\\c\n\x01\xC3\xA9");
  CHECK(v["torn_utf8"] == "x\xEF\xBF\xBD");  // invalid UTF-8 becomes U+FFFD, never an exception

  const std::string log = temp_path("metrics.jsonl");
  {
    std::FILE* f = std::fopen(log.c_str(), "w");
    const LogLine a = {{"stage", "pretrain"}, {"step", 1}, {"total_tokens", 100}, {"loss", 5.0}, {"tok_s", 10.0}};
    const LogLine b = {{"stage", "sft_qa"}, {"step", 1}, {"total_tokens", 200}, {"loss", 4.0}, {"val_loss", 4.2}};
    std::fprintf(f, "%s\n{torn line\n", amxqa::eval::dump_json(a).c_str());
    std::fprintf(f, "%s\n", amxqa::eval::dump_json(b).c_str());
    std::fclose(f);
  }
  PlotData d = read_metrics_log(log);
  REQUIRE(d.panels.size() == 3);
  CHECK(d.panels[0].series[0].points.size() == 2);
  CHECK(d.panels[0].series[1].points.size() == 1);
  CHECK(d.stage_starts.size() == 2);
  std::string svg = render_svg(d, "t<&>");
  CHECK(svg.find("<svg") == 0);
  CHECK(svg.find("t&lt;&amp;&gt;") != std::string::npos);
  CHECK(svg.find("polyline") != std::string::npos);
  std::remove(log.c_str());

  CardRound r{2, "QA SFT", 13.9, 20.0, 52.5, 57.7, 40.0, 259000000ull, 32400};
  std::string table = rounds_table({r});
  CHECK(table.find("| 2 | QA SFT | 13.9 | 20.0 | 52.5% | 57.7% | 40.0% | 259.00M | 9h00m |") != std::string::npos);
}

TEST_CASE("probes: generated with chance levels, scored on the first word") {
  auto sets = make_probes(3, 50);
  REQUIRE(sets.size() == 3);
  CHECK(sets[0].name == "induction");
  CHECK(sets[0].chance == doctest::Approx(1.0 / 14));
  CHECK(sets[2].chance > 0);
  CHECK(sets[2].chance < 0.2);
  for (const auto& it : sets[0].items) {
    // The expected word appears in the prompt right after the repeated prefix's last word.
    CHECK(it.prompt.find(it.expected.substr(1)) != std::string::npos);
    CHECK(it.passage == it.prompt);
  }
  const ProbeItem& add = sets[2].items[0];
  int a = std::atoi(add.prompt.c_str()), b = std::atoi(add.prompt.c_str() + add.prompt.find('+') + 1);
  CHECK(std::to_string(a + b) == add.expected);
  CHECK(probe_correct(" ko mi", " ko"));
  CHECK(probe_correct("68<|eot|>", "68"));
  CHECK(!probe_correct("685", "68"));
  CHECK(!probe_correct(" kox", " ko"));
  CHECK(!probe_correct("", " ko"));
  auto results = run_probes(sets, [](const ProbeItem& it) { return it.expected; });
  for (const auto& r : results) CHECK(r.accuracy == 1.0);
  CHECK(make_probes(3, 50)[1].items[7].prompt == sets[1].items[7].prompt);  // deterministic
}

TEST_CASE("sft sets: instruction spans end with EOT; abstention mix follows the ratio") {
  const std::string text = "It rained. He saw 3 cats! Then he left? yes. ok";
  auto sents = split_sentences(text);
  REQUIRE(sents.size() == 3);  // a sentence ends only before an upper-case letter or a digit
  CHECK(text.substr(sents[1].first, sents[1].second - sents[1].first) == "He saw 3 cats!");
  CHECK(text.substr(sents[2].first, sents[2].second - sents[2].first) == "Then he left? yes. ok");
  const std::string para =
      "The Normans were a people in France. They gave their name to Normandy, a region in the north. "
      "Their leader Rollo swore fealty to King Charles III of West Francia. The duchy grew for a century.";
  std::vector<std::string> paras(40, para);
  const TokenizerView& tok = test_tokenizer().view;
  SftSet s = build_stop_set(paras, tok, 30, 5, 4096, 1);
  CHECK(s.train.size() == 30);
  CHECK(s.val.size() == 5);
  for (const Example& ex : s.train) {
    CHECK(ex.tokens.back() == kEot);
    CHECK(ex.tokens[0] == kBos);
    CHECK(!ex.abstain);
  }

  std::vector<SquadArticle> arts(3);
  for (int a = 0; a < 3; ++a) {
    const char* ctx[] = {"Paris is the capital of France.", "Lyon is famous for food.", "Nice lies on the sea."};
    const char* ans[] = {"Paris", "Lyon", "Nice"};
    for (int p = 0; p < 3; ++p) {
      SquadParagraph par;
      par.context = ctx[p];
      for (int q = 0; q < 10; ++q) par.qas.push_back({"id", "Which city is it?", {ans[p]}, {0}});
      arts[a].paragraphs.push_back(par);
    }
  }
  SftSet mix = build_abstain_set(arts, tok, 40, 0, 0.25, 4096, 9);
  CHECK(mix.train.size() == 40);
  CHECK(mix.unanswerable == 10);
  SftSet qa = build_qa_set(arts, tok, 20, 4, 4096, 9);
  CHECK(qa.train.size() == 20);
  CHECK(qa.val.size() == 4);

  // Crops: whole sentences around the answer, targets unchanged, validation never cropped.
  std::vector<SquadArticle> long_arts(1);
  {
    SquadParagraph par;
    par.context = para + " Later the Normans reached Sicily. They built castles there. Many returned home.";
    const size_t at = par.context.find("Rollo");
    for (int q = 0; q < 12; ++q) par.qas.push_back({"id", "Who swore fealty?", {"Rollo"}, {int64_t(at)}});
    long_arts[0].paragraphs.push_back(par);
  }
  SftSet whole = build_qa_set(long_arts, tok, 8, 4, 4096, 3, 0.0);
  SftSet cropped = build_qa_set(long_arts, tok, 8, 4, 4096, 3, 1.0);
  REQUIRE(cropped.train.size() == whole.train.size());
  bool any_shorter = false;
  for (size_t i = 0; i < whole.train.size(); ++i) {
    const Example &w = whole.train[i], &c = cropped.train[i];
    CHECK(c.tokens.size() <= w.tokens.size());
    any_shorter = any_shorter || c.tokens.size() < w.tokens.size();
    // The answer and EOT (everything after the passage's ANS) are the same tokens.
    CHECK(std::vector<uint32_t>(c.tokens.begin() + c.passage_end, c.tokens.end()) ==
          std::vector<uint32_t>(w.tokens.begin() + w.passage_end, w.tokens.end()));
  }
  CHECK(any_shorter);
  for (size_t i = 0; i < whole.val.size(); ++i) CHECK(cropped.val[i].tokens == whole.val[i].tokens);

  // Real SQuAD 2.0 unanswerable questions (model v3): parsed only when asked,
  // mixed in at the ratio, on their own paragraph, target ABSTAIN; provenance
  // filters; validation stays answerable.
  const std::string v2 = R"({"data": [{"title": "T", "paragraphs": [{"context": "Paris is the capital of France.",
    "qas": [{"id": "a", "question": "What is the capital?", "answers": [{"text": "Paris", "answer_start": 0}]},
            {"id": "u1", "question": "What is the capital of Spain?", "answers": [], "is_impossible": true,
             "provenance": "anchor", "plausible_answers": [{"text": "Paris", "answer_start": 0}]},
            {"id": "u2", "question": "Who founded Paris?", "is_impossible": true, "provenance": "dp"},
            {"id": "u3", "is_impossible": true},
            {"id": "u4", "question": "Who?", "is_impossible": "yes", "answers": []}]}]}]})";
  CHECK(parse_squad(v2)[0].paragraphs[0].unanswerable.empty());
  const std::vector<SquadArticle> v2_arts = parse_squad(v2, true);
  const SquadParagraph& p2 = v2_arts[0].paragraphs[0];
  REQUIRE(p2.qas.size() == 1);
  REQUIRE(p2.unanswerable.size() == 2);  // u3 has no question; u4's flag is not a boolean (and no answers)
  CHECK(p2.unanswerable[0].provenance == "anchor");
  CHECK(p2.unanswerable[0].plausible == std::vector<std::string>{"Paris"});
  CHECK(p2.unanswerable[0].plausible_starts == std::vector<int64_t>{0});
  CHECK(p2.unanswerable[1].plausible.empty());
  std::vector<SquadArticle> real_arts = arts;
  for (auto& a : real_arts)
    for (auto& par : a.paragraphs) par.unanswerable = p2.unanswerable;
  SftSet none = build_qa_set(real_arts, tok, 200, 4, 4096, 5, 0.5);
  SftSet with_real = build_qa_set(real_arts, tok, 200, 4, 4096, 5, 0.5, {}, {0.3, ""});
  CHECK(none.real == 0);
  CHECK(with_real.real == with_real.unanswerable);
  CHECK(with_real.real > with_real.train.size() * 15 / 100);  // about 30% of the 86
  CHECK(with_real.real < with_real.train.size() * 45 / 100);
  for (size_t i = 0; i < with_real.train.size(); ++i)
    if (!with_real.train[i].abstain) CHECK(with_real.train[i].tokens == none.train[i].tokens);  // other slots unchanged
  for (const Example& ex : with_real.val) CHECK(!ex.abstain);
  SftSet anchored = build_qa_set(real_arts, tok, 200, 4, 4096, 5, 0.0, {}, {1.0, "anchor"});
  CHECK(anchored.real == anchored.train.size());
  SftSet unknown = build_qa_set(real_arts, tok, 200, 4, 4096, 5, 0.0, {}, {1.0, "no-such-provenance"});
  CHECK(unknown.real == 0);
  SftSet abstain_real = build_abstain_set(real_arts, tok, 40, 0, 0.25, 4096, 9, {0.1, ""});
  CHECK(abstain_real.unanswerable == 10);
  CHECK(abstain_real.real == 4);

  // Replay-free source: every cursor maps into the set, deterministically.
  ExampleSource src(mix.train, 5, nullptr, 0.0);
  ExampleSource src2(mix.train, 5, nullptr, 0.0);
  for (uint64_t c = 0; c < 100; ++c) CHECK(&src.at(c) != nullptr);
  CHECK(src.at(57).tokens == src2.at(57).tokens);
}

TEST_CASE("sft prefetch: sets built in order on one thread, taken once; a failure is rethrown where taken") {
  std::vector<std::string> built;  // written by the prefetch thread only, read after it is joined
  auto set_of = [](size_t n) {
    SftSet s;
    s.train.resize(n);
    return s;
  };
  {
    SftSetPrefetch p({"sft_stop", "sft_qa", "sft_abstain"}, [&](const std::string& stage) {
      built.push_back(stage);
      if (stage == "sft_qa") throw std::runtime_error("no such file: train.json.gz");
      return set_of(stage.size());
    });
    double seconds = -1;
    std::optional<SftSet> stop = p.take("sft_stop", &seconds);  // waits for it
    REQUIRE(stop);
    CHECK(stop->train.size() == 8);
    CHECK(seconds >= 0);
    CHECK_FALSE(p.take("sft_stop"));  // taken once; the round would build it itself
    CHECK_FALSE(p.take("pretrain"));  // never asked for
    CHECK_THROWS_WITH(p.take("sft_qa"), "no such file: train.json.gz");
    CHECK_FALSE(p.take("sft_abstain"));  // the thread stopped at the failure
  }
  CHECK(built == std::vector<std::string>{"sft_stop", "sft_qa"});
  // Destroyed with sets untaken (a run that stops early): the thread finishes
  // the set it is building, skips the rest and is joined.
  built.clear();
  {
    SftSetPrefetch p({"sft_stop", "sft_qa"}, [&](const std::string& stage) {
      built.push_back(stage);
      return set_of(1);
    });
  }
  CHECK(built.size() <= 2);
  CHECK((built.empty() || built[0] == "sft_stop"));
}

TEST_CASE("unanswerable kinds: each makes a question its passage cannot answer") {
  std::vector<SquadArticle> arts(1);
  const char* ctx[] = {
      "The largest castle was built by the Normans in 1066. It stood in Dover. Its walls were thick.",
      "Rollo was a Viking leader. He ruled Normandy from Rouen. His son was William Longsword.",
      "The castle walls were built of stone by the Normans. The castle builders came from Caen."};
  for (const char* c : ctx) {
    SquadParagraph par;
    par.context = c;
    arts[0].paragraphs.push_back(par);
  }
  const std::string& p0 = arts[0].paragraphs[0].context;
  arts[0].paragraphs[0].qas.push_back(
      {"q0", "What was the largest castle built by the Normans in Dover?", {"1066"}, {int64_t(p0.find("1066"))}});
  Rng rng(7);
  Unanswerable u;
  REQUIRE(make_unanswerable(arts, 0, 0, 0, UnanswerableKind::negation, 0.0, rng, &u));
  CHECK(u.question == "What was not the largest castle built by the Normans in Dover?");
  CHECK(u.passage == p0);
  REQUIRE(make_unanswerable(arts, 0, 0, 0, UnanswerableKind::antonym_swap, 0.0, rng, &u));
  CHECK(u.question == "What was the smallest castle built by the Normans in Dover?");
  REQUIRE(make_unanswerable(arts, 0, 0, 0, UnanswerableKind::entity_swap, 0.0, rng, &u));
  CHECK(u.question != arts[0].paragraphs[0].qas[0].question);
  CHECK(u.passage == p0);
  REQUIRE(make_unanswerable(arts, 0, 0, 0, UnanswerableKind::answer_removed, 0.0, rng, &u));
  CHECK(u.passage.find("1066") == std::string::npos);
  // Other paragraph: never one that holds the answer; the most similar (the
  // castle paragraph) at least once in a few draws.
  bool similar = false;
  for (int i = 0; i < 8; ++i) {
    REQUIRE(make_unanswerable(arts, 0, 0, 0, UnanswerableKind::other_paragraph, 0.5, rng, &u));
    CHECK(u.passage != p0);
    similar |= u.passage == arts[0].paragraphs[2].context;
  }
  CHECK(similar);
  for (int k = 0; k < kUnanswerableKinds; ++k)
    CHECK(std::string(unanswerable_kind_name(static_cast<UnanswerableKind>(k))) != "?");
  CHECK(parse_unanswerable_kinds("other_paragraph answer_removed entity_swap") == kDefaultUnanswerableKinds);
  CHECK(parse_unanswerable_kinds(" negation\tantonym_swap ") == 0x18u);
  CHECK_THROWS(parse_unanswerable_kinds("negation typo"));
  CHECK_THROWS(parse_unanswerable_kinds(""));
}

TEST_CASE("cloze questions: a name, number or date of a sentence becomes the gap; twins the passage cannot answer") {
  const std::string p =
      "The Normans were a people in northern France. Their leader Rollo swore fealty to King Charles III of West "
      "Francia in 911, and the duchy grew for a century. In 1066 the army of William crossed the sea to England and "
      "won the battle at Hastings. Its castles were built of stone by masons from Caen in Normandy.";
  auto whole_word = [](const std::string& t, const std::string& w) {
    for (size_t at = t.find(w); at != std::string::npos; at = t.find(w, at + 1)) {
      const bool l = at == 0 || !std::isalnum(static_cast<unsigned char>(t[at - 1]));
      const bool r = at + w.size() >= t.size() || !std::isalnum(static_cast<unsigned char>(t[at + w.size()]));
      if (l && r) return true;
    }
    return false;
  };
  ClozeMaker maker;
  std::set<std::string> answers;
  size_t swapped = 0, removed = 0;
  for (uint64_t seed = 0; seed < 200; ++seed) {
    Rng rng(seed);
    Cloze c;
    REQUIRE(maker.question(p, rng, &c));
    const std::string answer = p.substr(c.answer_begin, c.answer_end - c.answer_begin);
    answers.insert(answer);
    INFO(c.question << " -> " << answer);
    CHECK(p.find(answer) == p.rfind(answer));  // the answer occurs once: its span is the only one
    CHECK(c.sentence_begin <= c.answer_begin);
    CHECK(c.answer_end <= c.sentence_end);
    CHECK(!whole_word(c.question, answer));  // the gap is out of the question
    CHECK(c.question.back() == '?');
    const std::string wh = c.question.substr(0, c.question.find(' '));
    CHECK((wh == "What" || wh == "Who" || wh == "When" || wh == "How"));
    if (answer == "911" || answer == "1066") CHECK(wh == "When");
    if (answer == "King Charles III of West Francia") CHECK(wh == "Who");
    for (const std::string& e : c.question_entities) CHECK(whole_word(c.question, e));
    ClozeTwin t;
    if (!maker.twin(p, c, rng, &t)) continue;
    if (t.passage == p) {
      // One name or number swapped: the question changed, the answer still
      // absent, and the new entity found elsewhere in the paragraph or absent.
      CHECK(t.question != c.question);
      CHECK(!whole_word(t.question, answer));
      ++swapped;
    } else {
      CHECK(t.question == c.question);
      CHECK(t.passage.find(answer) == std::string::npos);
      CHECK(t.passage.size() < p.size());
      ++removed;
    }
  }
  CHECK(answers.count("King Charles III of West Francia") == 1);  // a run joined by "of"
  CHECK(answers.count("911") == 1);
  CHECK(answers.count("The Normans") == 0);  // a sentence's first word is capitalised as a start
  CHECK(swapped > 0);
  CHECK(removed == 0);  // every question here keeps a name or number to swap

  // A question without one: its twin is the passage without the answer's sentence.
  const std::string harbour =
      "It was a quiet town on the coast. The harbour was built in 1820 by local workers for the fishing boats. "
      "Boats still use it every day of the year. Most of them are small.";
  {
    Rng rng(5);
    Cloze c;
    REQUIRE(maker.question(harbour, rng, &c));
    CHECK(harbour.substr(c.answer_begin, c.answer_end - c.answer_begin) == "1820");
    CHECK(c.question.rfind("When ", 0) == 0);
    CHECK(c.question_entities.empty());
    ClozeTwin t;
    REQUIRE(maker.twin(harbour, c, rng, &t));
    CHECK(t.question == c.question);
    CHECK(t.passage == "It was a quiet town on the coast. Boats still use it every day of the year. Most of them are small.");
  }

  // A paragraph with no name or number that occurs once gives no question.
  Rng rng(1);
  Cloze c;
  CHECK(!maker.question("it was a day. then it was a night, and then it was a day again and more.", rng, &c));
  CHECK(!maker.question("", rng, &c));

  // In round 1: cloze questions in place of instructions, twins abstain, the
  // set keeps its size; without cloze_frac the set is the instructions alone.
  const TokenizerView& tok = test_tokenizer().view;
  std::vector<std::string> paras(60, p);
  SftSet s = build_stop_set(paras, tok, 40, 6, 4096, 3, ClozeMix{1.0, 0.5});
  CHECK(s.train.size() == 40);
  CHECK(s.val.size() == 6);
  CHECK(s.cloze >= 46);  // and a twin past the last one kept, at most
  CHECK(s.unanswerable > 4);
  CHECK(s.unanswerable < 30);
  for (const Example& ex : s.train) {
    CHECK(ex.tokens.back() == kEot);
    CHECK(ex.abstain == (ex.answer_begin == 0));
  }
  SftSet plain = build_stop_set(paras, tok, 40, 6, 4096, 3);
  CHECK(plain.cloze == 0);
  CHECK(plain.unanswerable == 0);
  SftSet zero = build_stop_set(paras, tok, 40, 6, 4096, 3, ClozeMix{0.0, 0.5});
  REQUIRE(zero.train.size() == plain.train.size());
  for (size_t i = 0; i < plain.train.size(); ++i) CHECK(zero.train[i].tokens == plain.train[i].tokens);
}

TEST_CASE("tokenizer file round-trips and rejects garbage") {
  TokenizerData t;
  t.merges = {{5 + 't', 5 + 'h'}, {261, 5 + 'e'}};
  t.max_chunk_len = 48;
  const std::string p = temp_path("tok.tok");
  save_tokenizer(p, t);
  TokenizerData u = load_tokenizer(p);
  CHECK(u.merges == t.merges);
  CHECK(u.max_chunk_len == 48);
  { std::FILE* f = std::fopen(p.c_str(), "w"); std::fputs("amxqa-tokenizer 1\nmax_chunk_len 64\nmerges 5\n1 2\n", f); std::fclose(f); }
  CHECK_THROWS(load_tokenizer(p));
  std::remove(p.c_str());
  CHECK_THROWS(load_tokenizer(p));
}

}  // TEST_SUITE

TEST_SUITE("integration") {

// The ci-tiny recipe's stages for a handful of steps in a temp folder; the
// exported file must open through the public C API.
TEST_CASE("ci-tiny recipe: every stage, a few steps, model opens with amxqa_model_open") {
  const std::string data = std::string(AMXQA_SOURCE_DIR) + "/../shared/data/squad/dev-v1.1-open.json.gz";
  if (!std::getenv("AMXQA_DATA") && !std::ifstream(data)) {
    MESSAGE("shared data not found; skipped");
    return;
  }
  const std::string out = temp_path("ci-tiny-run");
  const std::string recipe = std::string(AMXQA_SOURCE_DIR) + "/trainer/recipes/ci-tiny.recipe";
  std::vector<std::string> args = {"amxqa-train", "run", recipe, "--out", out,
      "--set", "tokenizer.max_bytes=100k", "--set", "data.max_bytes=100k", "--set", "pretrain.steps=6",
      "--set", "pretrain.eval_every=3", "--set", "pretrain.checkpoint_every=2",
      "--set", "sft_stop.steps=2", "--set", "sft_stop.examples=20", "--set", "sft_qa.steps=2",
      "--set", "sft_qa.examples=20", "--set", "sft_abstain.steps=2", "--set", "sft_abstain.examples=20",
      "--set", "eval.limit=6", "--set", "eval.round_limit=3", "--set", "eval.probe_items=3"};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  REQUIRE(run_cli(static_cast<int>(argv.size()), argv.data()) == 0);
  const std::string model = out + "/ci-tiny.amxqa";
  CapiModel m(model);  // amxqa_model_open on the exported bytes
  amxqa_model_info info = m.info();
  CHECK(info.d_model == 64);
  CHECK(info.vocab_size == 512);
  CHECK(std::string(info.layer_kinds) == "lin swa");
  CHECK(std::string(info.recipe) == "ci-tiny");
  CHECK(info.vocab_masked >= 3);
  bool has_em = false;
  for (const auto& s : m.scores()) has_em |= s.first == "squad_dev_em";
  CHECK(has_em);
  CapiAnswer a = m.answer("Who won?", "The Denver Broncos won Super Bowl 50.");
  CHECK(a.status == AMXQA_OK);
  CHECK((a.info.abstained || std::string("The Denver Broncos won Super Bowl 50.").find(a.text) != std::string::npos));
  std::ifstream card(out + "/MODEL_CARD.md");
  CHECK(card.good());
  // A rerun finds every output and skips every stage.
  REQUIRE(run_cli(static_cast<int>(argv.size()), argv.data()) == 0);

  // `run` built the rounds' sets ahead on its prefetch thread; rounds run
  // one by one from the same pretraining checkpoint build their own. Same
  // sets, so the same weights, bit for bit.
  auto command = [&](const std::string& cmd, const std::string& dir) {
    std::vector<std::string> a = args;
    a[1] = cmd;
    a[4] = dir;
    a.erase(a.begin());  // run_trainer puts the tool's name back
    return a;
  };
  const std::string alone = temp_path("ci-tiny-alone");
  make_dirs(alone);
  for (const char* f : {"tokenizer.tok", "pretrain.ckpt"}) copy_file(out + "/" + f, alone + "/" + f);
  for (const char* cmd : {"sft-stop", "sft-qa", "sft-abstain"}) REQUIRE(test::run_trainer(alone, command(cmd, alone)).rc == 0);
  const ArchConfig arch = read_run_config(Recipe::load(out + "/recipe.recipe")).arch;
  for (const char* stage : {"sft_stop", "sft_qa", "sft_abstain"}) {
    CAPTURE(stage);
    TrainModel a(arch, 1), b(arch, 2);
    TrainState sa, sb;
    REQUIRE(load_checkpoint(out + "/" + stage_checkpoint(stage), a, sa));
    REQUIRE(load_checkpoint(alone + "/" + stage_checkpoint(stage), b, sb));
    CHECK(sa.step == sb.step);
    CHECK(sa.data_cursor == sb.data_cursor);
    test::check_same_model(a, b);
  }

  // A set the prefetch thread cannot build (the SQuAD file is missing) fails
  // the run when its round starts, with exit code 1 and the error the round
  // gives when run alone; the thread says so as soon as it fails.
  const std::string bad = temp_path("ci-tiny-bad");
  make_dirs(bad);
  for (const char* f : {"tokenizer.tok", "pretrain.ckpt", "sft_stop.ckpt"}) copy_file(out + "/" + f, bad + "/" + f);
  std::vector<std::string> missing = command("run", bad);
  missing.insert(missing.end(), {"--set", "squad.train=" + bad + "/missing.json.gz"});
  const test::Run r = test::run_trainer(bad, missing);
  CHECK(r.rc == 1);
  CHECK(r.err.find("[prefetch] building the sft_qa set failed") != std::string::npos);
  const size_t at = r.err.find("amxqa-train run: error: ");
  REQUIRE(at != std::string::npos);
  const std::string message = r.err.substr(at + 24, r.err.find('\n', at) - at - 24);
  CHECK(message.find("missing.json.gz") != std::string::npos);
  missing[0] = "sft-qa";
  const test::Run one = test::run_trainer(bad, missing);
  CHECK(one.rc == 1);
  CHECK(one.err.find("amxqa-train sft-qa: error: " + message + "\n") != std::string::npos);
  CHECK_FALSE(std::ifstream(bad + "/sft_qa.ckpt").good());
  std::system(("rm -rf '" + out + "' '" + alone + "' '" + bad + "'").c_str());
}

}  // TEST_SUITE
