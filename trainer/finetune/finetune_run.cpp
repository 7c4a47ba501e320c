#include "finetune/finetune_run.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "amxqa.hpp"
#include "finetune/finetune_card.h"
#include "finetune/finetune_data.h"
#include "finetune/finetune_eval.h"
#include "gz_text.h"
#include "stages/export_model.h"
#include "stages/import_model.h"
#include "stages/stages.h"

namespace amxqa::train {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// Refused before any work: an output that cannot be created.
void check_writable(const std::string& path) {
  const std::string probe = path + ".tmp";
  std::ofstream f(probe, std::ios::binary | std::ios::trunc);
  if (!f) throw std::runtime_error("cannot write " + path + ": " + std::strerror(errno));
  f.close();
  std::remove(probe.c_str());
}

std::string base_name(const std::string& path) { return path.substr(path.find_last_of('/') + 1); }

// The input's weight type as outputs.dtype spells it.
std::string dtype_of(const amxqa_model_info& info) {
  const std::string d = info.weight_dtype;
  if (d == "int8") return info.weight_bits == 7 ? "i7" : "i8";
  return d;
}

// The training set: every answerable question of the trained part as a span
// target (made_up of them replaced by made-up unanswerable ones, so that
// abstention is not forgotten on data without any), plus every real SQuAD 2.0
// unanswerable question as ABSTAIN on its own paragraph.
SftSet build_finetune_set(const std::vector<eval::SquadArticle>& train, const QuestionCounts& n,
                          const TokenizerView& tok, const FinetuneOptions& o) {
  SftSet s;
  if (n.answerable)
    s = build_qa_set(train, tok, n.answerable, 0, o.max_tokens, o.seed, 0.0, UnanswerableMix{o.made_up, kDefaultUnanswerableKinds, 0.0});
  if (n.unanswerable) {
    SftSet u = build_abstain_set(train, tok, n.unanswerable, 0, 1.0, o.max_tokens, o.seed + 1, RealUnanswerableMix{1.0, ""});
    for (Example& e : u.train) s.train.push_back(std::move(e));
    s.unanswerable += u.unanswerable;
    s.real += u.real;
    s.skipped += u.skipped;
  }
  return s;
}

// A few held-out questions, answerable and unanswerable, evenly spaced.
std::vector<size_t> sample_indices(const eval::EvalSet& set, size_t answerable, size_t unanswerable) {
  std::vector<size_t> has, no, out;
  for (size_t i = 0; i < set.questions.size(); ++i) (set.questions[i].impossible ? no : has).push_back(i);
  for (size_t k = 0; k < answerable && k < has.size(); ++k) out.push_back(has[k * has.size() / std::min(answerable, has.size())]);
  for (size_t k = 0; k < unanswerable && k < no.size(); ++k) out.push_back(no[k * no.size() / std::min(unanswerable, no.size())]);
  return out;
}

}  // namespace

void run_finetune(const FinetuneOptions& o) {
  const Clock::time_point t0 = Clock::now();
  if (o.holdout <= 0 || o.holdout >= 1) throw std::invalid_argument("--holdout must lie in (0, 1)");
  // Everything that can be refused is, before any training.
  check_writable(o.out);
  Recipe recipe = Recipe::parse("", "finetune");
  set_recipe_arch(recipe, o.model);  // throws on a missing or invalid file
  amxqa_model_info info;
  {
    const amxqa::Model m = amxqa::Model::open_file(o.model);
    if (!m.ok()) throw std::runtime_error(o.model + ": " + m.status().message);
    info = m.info();
  }
  if (!recipe.boolean("arch.start_pointer", false))
    throw std::runtime_error(o.model + ": the model has no start pointer (arch.start_pointer false); finetune trains "
                             "the start/end pointer answer head, so it needs a model made with one, such as "
                             "sdk/models/default.amxqa");
  const std::vector<eval::SquadArticle> all = load_finetune_squad(o.data);
  FinetuneSplit split;
  std::string split_how;
  if (!o.dev.empty()) {
    split.train = all;
    split.held_out = load_finetune_squad(o.dev);
    split_how = "the --dev file " + o.dev;
  } else {
    split = split_by_paragraph(all, o.holdout);
    char buf[160];
    std::snprintf(buf, sizeof buf, "evenly spaced paragraphs, about %.0f%% of them, never trained on", 100 * o.holdout);
    split_how = buf;
  }
  const QuestionCounts n_train = count_squad(split.train), n_held = count_squad(split.held_out);
  const std::string dtype = o.dtype.empty() ? dtype_of(info) : o.dtype;

  // The recipe, in memory: the model's arch, its weights and tokenizer
  // (init.model), the user's data as squad.train (its digest goes into the
  // file's provenance), QA SFT's extractive loss.
  const std::string work = o.work.empty() ? o.out + ".work" : o.work;
  recipe.set("name", "finetune");
  recipe.set("seed", std::to_string(o.seed));
  recipe.set("threads", std::to_string(o.threads));
  recipe.set("init.model", fs::absolute(o.model).string());
  recipe.set("squad.train", fs::absolute(o.data).string());
  recipe.set("sft_qa.batch_tokens", std::to_string(o.batch_tokens));
  recipe.set("sft_qa.loss", "extractive");
  recipe.set("sft_qa.checkpoint_every", "0");  // one short run: no partial checkpoints
  recipe.set("outputs.dtype", dtype);
  char lr[32];
  std::snprintf(lr, sizeof lr, "%g", o.lr);
  recipe.set("sft_qa.lr", lr);
  std::unique_ptr<RunContext> ctx = make_context(std::move(recipe), work, false);
  // The work folder holds what this run writes (the imported model as
  // checkpoints, the loop's log); files of an earlier run there are removed
  // first, so the import never reuses another model's.
  struct WorkFiles {
    std::string dir;
    bool keep;
    void remove() const {
      for (const char* f : {kTokenizerFile, "pretrain.ckpt", "sft_stop.ckpt", "finetune.ckpt", "finetune.partial.ckpt",
                            "finetuned.amxqa", "finetuned.amxqa.tmp"})
        std::remove((dir + "/" + f).c_str());
    }
    ~WorkFiles() {
      if (keep) return;
      remove();
      for (const char* f : {"recipe.recipe", "metrics.jsonl"}) std::remove((dir + "/" + f).c_str());
      std::error_code ec;
      fs::remove(dir, ec);  // only when nothing else is in it
    }
  } work_files{ctx->cfg.out_dir, o.keep_work};
  work_files.remove();
  import_init_model(*ctx);
  RunTokenizer tok = load_run_tokenizer(*ctx);

  SftSet set = build_finetune_set(split.train, n_train, tok.owned.view, o);
  if (set.train.empty())
    throw std::runtime_error(o.data + ": no usable training example: all " + std::to_string(n_train.total()) +
                             " questions of the trained part were skipped (longer than " +
                             std::to_string(o.max_tokens) + " tokens, or an answer not on a token boundary)");
  {  // validation loss on the held-out answerable questions (the loop prints it at the end)
    const size_t n_val = std::min<size_t>(64, n_held.answerable);
    if (n_val) set.val = build_qa_set(split.held_out, tok.owned.view, n_val, 0, o.max_tokens, o.seed).train;
  }
  apply_prompt_format(ctx->cfg.arch, tok.owned.view, set);  // the model's own prompt (set_recipe_arch)
  uint64_t epoch_tokens = 0;
  for (const Example& e : set.train) epoch_tokens += e.tokens.size();
  StageConfig& sc = ctx->cfg.sft_qa;
  sc.steps = o.steps ? o.steps
                     : std::max<uint64_t>(1, static_cast<uint64_t>(std::ceil(o.epochs * double(epoch_tokens) /
                                                                             double(o.batch_tokens))));
  sc.optim.warmup = static_cast<uint32_t>(std::max<uint64_t>(1, sc.steps / 10));
  sc.eval_every = static_cast<uint32_t>(sc.steps);
  ctx->recipe.set("sft_qa.steps", std::to_string(sc.steps));
  ctx->recipe.set("sft_qa.warmup", std::to_string(sc.optim.warmup));

  std::printf("model   %s: %s weights, threshold %+.3f%s\n", o.model.c_str(), info.weight_dtype,
              double(info.no_answer_threshold), info.calibrated ? "" : " (uncalibrated)");
  std::printf("data    %s: trained on %zu paragraphs (%zu answerable, %zu unanswerable questions); held out %zu "
              "paragraphs (%zu answerable, %zu unanswerable): %s\n",
              o.data.c_str(), n_train.paragraphs, n_train.answerable, n_train.unanswerable, n_held.paragraphs,
              n_held.answerable, n_held.unanswerable, split_how.c_str());
  std::printf("train   %zu examples (%zu abstain, %zu real unanswerable), %zu skipped; %llu steps of %llu tokens "
              "(%.2f epochs), lr %g, %u thread(s), output %s\n",
              set.train.size(), set.unanswerable, set.real, set.skipped, static_cast<unsigned long long>(sc.steps),
              static_cast<unsigned long long>(o.batch_tokens),
              double(sc.steps) * double(o.batch_tokens) / double(std::max<uint64_t>(1, epoch_tokens)), o.lr,
              ctx->cfg.threads, dtype.c_str());
  std::fflush(stdout);

  const eval::EvalSet held = to_eval_set(split.held_out);
  std::fprintf(stderr, "[finetune] scoring the input on %zu held-out questions\n", held.questions.size());
  const HeldOutPass before_pass = held_out_pass(o.model, held);
  const HeldOutScore before = score_at(before_pass, before_pass.model_threshold);

  const Clock::time_point t_train = Clock::now();
  TrainModel model(ctx->cfg.arch, ctx->cfg.seed);
  TrainState state;
  const LoopResult r = train_sft_set(*ctx, "finetune", "sft_stop", sc, 2, set, tok, model, state);
  const double train_seconds = seconds_since(t_train);

  // Exported once in the output's dtype to be scored as it will ship; the
  // threshold is chosen on that file, then written into the output.
  const std::vector<uint8_t> mask = trained_vocab_mask(model.token_seen(), ctx->cfg.arch.vocab_size);
  ModelSpec spec = make_model_spec(*ctx, model, state, tok.data, mask, {},
                                   "finetuned from " + base_name(o.model) + " by amxqa-train finetune");
  spec.provenance.tokens_seen = info.tokens_seen + r.stage_tokens;
  const std::string candidate = ctx->out("finetuned.amxqa");
  export_model_file(candidate, spec);
  std::fprintf(stderr, "[finetune] scoring the result on the held-out questions\n");
  const HeldOutPass after_pass = held_out_pass(candidate, held);
  FinetuneCard card;
  card.after_old_threshold = score_at(after_pass, before_pass.model_threshold);
  float threshold = before_pass.model_threshold;
  std::string method = before_pass.method;
  bool calibrated = before_pass.calibrated;
  if (n_held.unanswerable && n_held.answerable) {
    const std::string name = "held-out " + base_name(o.dev.empty() ? o.data : o.dev);
    const eval::Sweep sweep = eval::sweep_thresholds(after_pass.items, 12, o.max_over_refusal);
    threshold = sweep.best.threshold;
    method = eval::describe_choice(name, o.max_over_refusal);
    calibrated = card.recalibrated = true;
    // The input with its threshold chosen the same way, so the comparison
    // shows what training changed, not what the threshold did.
    card.before_recalibrated =
        score_at(before_pass, eval::sweep_thresholds(before_pass.items, 12, o.max_over_refusal).best.threshold);
    char buf[512];
    std::snprintf(buf, sizeof buf,
                  "The no-answer threshold was re-chosen on the held-out questions: %+.3f (%s). Chosen and scored "
                  "on the same questions, the rows at a re-chosen threshold flatter both models alike.",
                  double(threshold), method.c_str());
    card.threshold_note = buf;
  } else {
    char buf[256];
    std::snprintf(buf, sizeof buf, "The input's no-answer threshold %+.3f was kept: the held-out part has no %s "
                  "question to choose another on.", double(threshold), n_held.unanswerable ? "answerable" : "unanswerable");
    card.threshold_note = buf;
  }
  const HeldOutScore after = score_at(after_pass, threshold);
  spec.calibration.present = calibrated;
  spec.calibration.no_answer_threshold = threshold;
  spec.calibration.method = calibrated ? method : "";
  spec.provenance.scores = {{"finetune_heldout_em", float(after.at.em)},
                            {"finetune_heldout_f1", float(after.at.f1)},
                            {"finetune_heldout_over_refusal", float(after.at.over_refusal)},
                            {"finetune_heldout_n", float(held.questions.size())}};
  export_model_file(o.out, spec);

  std::printf("\nheld out: %zu questions (%zu answerable, %zu unanswerable)\n", held.questions.size(),
              n_held.answerable, n_held.unanswerable);
  print_score_header(stdout);
  print_score(stdout, "before", before);
  if (card.recalibrated) {
    print_score(stdout, "before, threshold re-chosen", card.before_recalibrated);
    print_score(stdout, "after, input's threshold", card.after_old_threshold);
  }
  print_score(stdout, "after", after);
  std::printf("%s\n", card.threshold_note.c_str());

  // A few generations, the output file answering through the C API.
  const std::vector<size_t> idx = sample_indices(held, 4, 2);
  const std::vector<std::string> was = answers_at(o.model, held, idx, before_pass.model_threshold);
  const std::vector<std::string> now = answers_at(o.out, held, idx, NAN);  // the file's own threshold
  for (size_t i = 0; i < idx.size(); ++i) {
    const eval::EvalQuestion& q = held.questions[idx[i]];
    card.samples.push_back({q.question, q.impossible ? "(no answer)" : q.answers.front(), was[i], now[i]});
  }

  amxqa_cpu_info cpu = amxqa_cpu_info_init();
  amxqa_cpu_query(&cpu);
  card.model_in = o.model;
  card.model_out = o.out;
  card.data = o.data;
  card.data_digest = eval::data_digest(o.data);
  card.split = split_how;
  card.dtype = dtype;
  card.cpu = std::string(cpu.model_name[0] ? cpu.model_name : "an unnamed CPU") + " (" + amxqa_isa_name(cpu.best) + ")";
  card.train = n_train;
  card.held_out = n_held;
  card.examples = set.train.size();
  card.abstain_examples = set.unanswerable;
  card.real_unanswerable = set.real;
  card.skipped = set.skipped;
  card.steps = r.steps;
  card.tokens = r.stage_tokens;
  card.batch_tokens = o.batch_tokens;
  card.epochs = double(r.stage_tokens) / double(std::max<uint64_t>(1, epoch_tokens));
  card.lr = o.lr;
  card.train_seconds = train_seconds;
  card.tok_per_s = train_seconds > 0 ? double(r.stage_tokens) / train_seconds : 0;
  card.threads = ctx->cfg.threads;
  card.before = before;
  card.after = after;
  card.total_seconds = seconds_since(t0);
  const std::string card_path = finetune_card_path(o.out);
  std::ofstream(card_path) << finetune_card_markdown(card);
  std::printf("\nwrote %s (%s weights, threshold %+.3f) and %s; %llu steps, %llu tokens, training %s, %s in all\n",
              o.out.c_str(), dtype.c_str(), double(threshold), card_path.c_str(),
              static_cast<unsigned long long>(r.steps), static_cast<unsigned long long>(r.stage_tokens),
              format_duration(train_seconds).c_str(), format_duration(card.total_seconds).c_str());
}

}  // namespace amxqa::train
