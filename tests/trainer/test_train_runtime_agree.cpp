// test_train_runtime_agree.cpp — what the trainer computes is what ships: a
// TrainModel exported as f32 and opened by the runtime gives the same logits
// as the trainer's own forward pass, with the question-match feature (MODEL.md
// "Question match") on and off. The runtime's prefill sets the feature in
// answer.cpp; here the flags come from the passage range, as in the trainer.
// For a start-pointer model (MODEL.md "Start pointer") the runtime's first
// extractive choice, a passage position, is the one the trainer's loss counts
// as its argmax; with the end pointer (MODEL.md "End pointer") so is the span's
// last position. With the no-answer head (MODEL.md "No-answer head") the
// runtime's no-answer margin is the trainer's, and so is the abstain decision;
// a file without the head, imported into a recipe with it, answers as before.
// With the question re-read (MODEL.md "Question re-read") the trainer's
// examples are the runtime's prompt and the margins and starts agree.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "model/train_model.h"
#include "recipe/run_config.h"
#include "squad/squad_examples.h"
#include "stages/import_model.h"
#include "support/session_fixture.h"

using namespace amxqa;
using namespace amxqa::train;
using namespace amxqa::test;

namespace {

// The questions and passage of the start- and end-pointer agreement tests.
const char* const kPointerQuestions[] = {
    "who built the old tower in the town", "when did the river flood",
    "what is the name of the king", "where do the birds go in winter"};
const char* const kPointerPassage =
    "the tower was built by the people of the town in the old days when the river "
    "flooded every spring and the king called the birds to the hills for the winter";

// Max |a − b| relative to the largest |b|.
double max_rel_diff(const float* a, const float* b, size_t n) {
  double diff = 0, scale = 1e-6;
  for (size_t i = 0; i < n; ++i) {
    diff = std::max(diff, double(std::fabs(a[i] - b[i])));
    scale = std::max(scale, double(std::fabs(b[i])));
  }
  return diff / scale;
}

std::vector<float> trainer_last_logits(TrainModel& m, const std::vector<uint32_t>& ids,
                                       uint32_t pb, uint32_t pe) {
  LossOptions opt;
  opt.passage_begin = pb;
  opt.passage_end = pe;
  std::vector<float> z;
  m.last_logits(ids.data(), ids.size(), z, opt);
  return z;
}

// The trainer's view of the prompt of q and p: its ids, and extractive loss
// options over its passage range [passage_begin, passage_end).
struct TrainerPrompt {
  std::vector<uint32_t> ids;
  LossOptions opt;
};
TrainerPrompt trainer_prompt(const amxqa_model* m, const std::string& q, const std::string& p) {
  TrainerPrompt t;
  t.ids = prompt_ids(m, q, p);
  t.opt.kind = LossKind::extractive;
  t.opt.passage_begin = static_cast<uint32_t>(1 + encode_text(m, q).size() + encode_text(m, "\n\n").size());
  t.opt.passage_end = t.opt.passage_begin + static_cast<uint32_t>(encode_text(m, p).size());
  return t;
}

// The trainer's loss on the ANS row alone of the prompt of q and p, one
// document per target: each passage position in turn (its start, with
// answer_begin there), then ABSTAIN (the last entry).
std::vector<StepStats> ans_row_stats(TrainModel& m, const amxqa_model* rt, const std::string& q,
                                     const std::string& p) {
  TrainerPrompt t = trainer_prompt(rt, q, p);
  std::vector<uint32_t> doc(t.ids);
  doc.push_back(0);
  std::vector<uint8_t> mask(doc.size(), 0);
  mask[t.ids.size() - 1] = 1;
  std::vector<StepStats> out;
  for (uint32_t i = t.opt.passage_begin; i < t.opt.passage_end; ++i) {
    doc.back() = doc[i];
    t.opt.answer_begin = i;
    out.push_back(m.evaluate(doc.data(), doc.size(), mask.data(), t.opt));
  }
  doc.back() = kAbstain;
  t.opt.answer_begin = 0;
  out.push_back(m.evaluate(doc.data(), doc.size(), mask.data(), t.opt));
  return out;
}

// The trainer's no-answer margin from its losses on the ANS row
// (ans_row_stats): loss_i − loss_∅ = z_∅ − z_i, least over the starts.
double trainer_margin(const std::vector<StepStats>& st) {
  double margin = INFINITY;
  for (size_t i = 0; i + 1 < st.size(); ++i) margin = std::min(margin, st[i].loss_sum - st.back().loss_sum);
  return margin;
}

// Asks session s (over rt) question q about p and checks its no-answer
// margin and abstain decision against the trainer's ANS-row losses
// (threshold 0: abstain iff z_∅ beats every start); returns the answer and
// those losses (ans_row_stats).
std::pair<Asked, std::vector<StepStats>> ask_margin_agrees(TrainModel& m, const amxqa_model* rt,
                                                           amxqa_session* s, const char* q,
                                                           const std::string& p) {
  const Asked a = ask(s, q, p);
  REQUIRE(a.status == AMXQA_OK);
  std::vector<StepStats> st = ans_row_stats(m, rt, q, p);
  const double margin = trainer_margin(st);
  INFO("question: " << q << ", runtime margin " << a.info.no_answer_margin << ", trainer " << margin);
  CHECK(std::fabs(a.info.no_answer_margin - margin) < 1e-3 * std::max(1.0, std::fabs(margin)));
  CHECK(bool(a.info.abstained) == bool(st.back().correct));
  return {a, std::move(st)};
}

// Whether `base` (the same model with the part under test at zero) answers
// q about p with a no-answer margin more than 0.05 from a's: the part is live.
bool margin_moved(amxqa_session* base, const char* q, const std::string& p, const Asked& a) {
  const Asked z = ask(base, q, p);
  REQUIRE(z.status == AMXQA_OK);
  return std::fabs(z.info.no_answer_margin - a.info.no_answer_margin) > 0.05f;
}

// The tiny random model with the question match and the start pointer, the
// base every pointer case here adds its flag to.
ModelSpec pointer_spec() {
  ModelSpec spec = make_random_model("tiny", 5);
  spec.arch.question_match = true;
  spec.arch.start_pointer = true;
  return spec;
}

// Session options whose step 1 the trainer's softmax mirrors (it does not
// mirror the whole-words rule or the vocabulary mask).
amxqa_session_options pointer_options(uint32_t max_answer_tokens) {
  amxqa_session_options o = default_options();
  o.whole_words = 0;
  o.use_vocab_mask = 0;
  o.max_answer_tokens = max_answer_tokens;
  return o;
}

}  // namespace

TEST_SUITE("unit") {
  TEST_CASE("trainer and runtime logits agree, question match on and off") {
    for (const bool qm : {false, true}) {
      ModelSpec spec = make_random_model("tiny", 3);
      spec.arch.question_match = qm;
      TrainModel m(spec.arch, 11);
      // Give the PAD row a fixed, sizeable value so the feature
      // visibly moves the logits when it is on.
      Param* emb = m.find("tok_emb");
      REQUIRE(emb != nullptr);
      for (size_t i = 0; i < spec.arch.d_model; ++i)
        emb->w[size_t(kPad) * spec.arch.d_model + i] = (i % 3 == 0) ? 0.5f : -0.25f;
      spec.tensors = m.to_tensors(DType::f32);
      auto tm = open_spec(spec);
      auto ts = make_session(tm->model, default_options());
      REQUIRE(ts->status == AMXQA_OK);

      const std::string q = "who built the old tower in the town";
      const std::string p = "the tower was built by the people of the town in the old days";
      const std::vector<uint32_t> ids = prompt_ids(tm->model, q, p);
      const uint32_t nq = static_cast<uint32_t>(encode_text(tm->model, q).size());
      const uint32_t nsep = static_cast<uint32_t>(encode_text(tm->model, "\n\n").size());
      const uint32_t pb = 1 + nq + nsep;
      const uint32_t pe = pb + static_cast<uint32_t>(encode_text(tm->model, p).size());
      std::vector<uint8_t> match(ids.size(), 0);
      size_t matched = 0;
      for (uint32_t t = pb; t < pe; ++t)
        for (uint32_t i = 1; i < pb; ++i)
          if (ids[i] == ids[t]) match[t] = 1;
      for (uint8_t f : match) matched += f;
      REQUIRE(matched > 0);

      const size_t V = tm->model->vocab_size;
      std::vector<float> rt(ids.size() * V), rt_plain(ids.size() * V);
      REQUIRE(test::forward_logits(ts->s, ids.data(), ids.size(), false, rt.data(),
                                      match.data()) == AMXQA_OK);
      REQUIRE(test::forward_logits(ts->s, ids.data(), ids.size(), false, rt_plain.data()) ==
              AMXQA_OK);
      const float* last = rt.data() + (ids.size() - 1) * V;
      const float* last_plain = rt_plain.data() + (ids.size() - 1) * V;

      const std::vector<float> tr = trainer_last_logits(m, ids, pb, pe);
      const std::vector<float> tr_plain = trainer_last_logits(m, ids, 0, 0);
      INFO("question_match " << qm);
      CHECK(max_rel_diff(last, tr.data(), V) < 1e-4);
      CHECK(max_rel_diff(last_plain, tr_plain.data(), V) < 1e-4);
      // On: the flags change the answer-position logits; off: they are ignored.
      if (qm)
        CHECK(max_rel_diff(last, last_plain, V) > 1e-3);
      else
        CHECK(max_rel_diff(last, last_plain, V) == 0.0);
    }
  }

  TEST_CASE("start pointer: the runtime starts where the trainer's argmax is") {
    ModelSpec spec = pointer_spec();
    TrainModel m(spec.arch, 13);
    spec.tensors = m.to_tensors(DType::f32);
    auto tm = open_spec(spec);
    auto ts = make_session(tm->model, pointer_options(1));  // step 1 only: s->cand[0] is the start
    REQUIRE(ts->status == AMXQA_OK);
    const std::string p = kPointerPassage;
    size_t starts = 0;
    for (const char* q : kPointerQuestions) {
      const Asked a = ask(ts->s, q, p);
      REQUIRE(a.status == AMXQA_OK);
      const std::vector<StepStats> st = ans_row_stats(m, tm->model, q, p);
      std::vector<uint32_t> argmax;
      for (uint32_t i = 0; i + 1 < st.size(); ++i)
        if (st[i].correct) argmax.push_back(i);
      const bool trainer_abstains = st.back().correct;
      INFO("question: " << q);
      CHECK(a.info.abstained == trainer_abstains);
      if (!trainer_abstains) {
        REQUIRE(argmax.size() == 1);
        CHECK(ts->s->cand[0] == argmax[0]);
        ++starts;
      }
    }
    CHECK(starts > 0);
  }

  TEST_CASE("no-answer head: the runtime's margin and abstain decision are the trainer's") {
    ModelSpec spec = pointer_spec();
    spec.arch.no_answer_head = true;
    TrainModel m(spec.arch, 13);
    Param* W = m.find("no_answer_w");
    REQUIRE(W != nullptr);
    // The same model with W = 0 (its init): the margins the head moves.
    spec.tensors = m.to_tensors(DType::f32);
    auto tz = open_spec(spec);
    auto tsz = make_session(tz->model, pointer_options(1));
    REQUIRE(tsz->status == AMXQA_OK);
    const std::string p = kPointerPassage;
    size_t abstained = 0, moved = 0, checked = 0;
    // Random W at a small and a large scale, both signs: margins (−35 to −44
    // nats with W = 0) either side of 0.
    for (const float scale : {0.1f, 3.f, -3.f}) {
      uint64_t r = 0x6e6f2d616e73ull;
      for (float& x : W->w) x = (float(splitmix64(r) >> 40) / 16777216.f - 0.5f) * scale;
      spec.tensors = m.to_tensors(DType::f32);
      auto tm = open_spec(spec);
      auto ts = make_session(tm->model, pointer_options(1));
      REQUIRE(ts->status == AMXQA_OK);
      CAPTURE(scale);
      for (const char* q : kPointerQuestions) {
        const Asked a = ask_margin_agrees(m, tm->model, ts->s, q, p).first;
        abstained += a.info.abstained;
        moved += margin_moved(tsz->s, q, p, a);
        ++checked;
      }
    }
    CHECK(checked == 12);
    CHECK(moved == checked);  // the head is live
    CHECK(abstained > 0);     // both decisions are compared
    CHECK(abstained < checked);
  }

  TEST_CASE("passage reader: the runtime's keys read both sides as the trainer's do (margins, starts)") {
    ModelSpec spec = pointer_spec();
    spec.arch.no_answer_head = true;  // its pool reads every key, so the margin sees them all
    spec.arch.passage_reader = true;
    TrainModel m(spec.arch, 17);
    Param* W = m.find("no_answer_w");
    Param* wo = m.find("reader_wo");
    REQUIRE(W != nullptr);
    REQUIRE(wo != nullptr);
    uint64_t r = 0x7265616465ull;
    for (float& x : W->w) x = (float(splitmix64(r) >> 40) / 16777216.f - 0.5f) * 3.f;
    // reader_wo = 0 (its init): the keys the reader moves.
    spec.tensors = m.to_tensors(DType::f32);
    auto tz = open_spec(spec);
    REQUIRE(tz->model != nullptr);
    CHECK(tz->model->passage_reader);
    auto tsz = make_session(tz->model, pointer_options(1));
    REQUIRE(tsz->status == AMXQA_OK);
    const std::string p = kPointerPassage;
    size_t moved = 0, checked = 0;
    for (const float scale : {0.5f, 4.f}) {
      for (float& x : wo->w) x = (float(splitmix64(r) >> 40) / 16777216.f - 0.5f) * scale;
      spec.tensors = m.to_tensors(DType::f32);
      auto tm = open_spec(spec);
      auto ts = make_session(tm->model, pointer_options(1));
      REQUIRE(ts->status == AMXQA_OK);
      CAPTURE(scale);
      for (const char* q : kPointerQuestions) {
        const auto [a, st] = ask_margin_agrees(m, tm->model, ts->s, q, p);
        if (!a.info.abstained) {  // the runtime's start is the trainer's argmax over starts
          size_t best = 0;
          for (size_t i = 1; i + 1 < st.size(); ++i)
            if (st[i].loss_sum < st[best].loss_sum) best = i;
          CHECK(st[best].correct == 1u);
        }
        moved += margin_moved(tsz->s, q, p, a);
        ++checked;
      }
    }
    CHECK(checked == 8);
    CHECK(moved == checked);  // the reader is live
  }

  // A recipe that imports `file` (its arch read from the file, whose flag
  // `key` must be `file_has`) with that flag set to `want`.
  Recipe flag_import_recipe(const char* name, const std::string& file, const char* key, bool file_has, bool want) {
    Recipe r = Recipe::parse("", name);
    set_recipe_arch(r, file);
    CHECK(r.boolean(key, !file_has) == file_has);
    r.set(key, want ? "true" : "false");
    r.set("init.model", file);
    return r;
  }
  Recipe head_import_recipe(const char* name, const std::string& file, bool file_has_head, bool head) {
    return flag_import_recipe(name, file, "arch.no_answer_head", file_has_head, head);
  }

  // A start-pointer random model, written to plain.amxqa in a fresh temporary folder.
  struct PlainFile {
    std::string dir, path;
    ModelSpec spec;
  };
  PlainFile plain_pointer_file(const std::string& prefix) {
    std::string tmpl = "/tmp/" + prefix + "-XXXXXX";
    REQUIRE(mkdtemp(tmpl.data()) != nullptr);
    PlainFile f{tmpl, tmpl + "/plain.amxqa", make_random_model("tiny", 3)};
    f.spec.arch.start_pointer = true;
    write_file(f.path, write_model(f.spec));
    return f;
  }

  // The model a run of `recipe` (which imports a file) starts from.
  std::unique_ptr<TrainModel> imported_model(const Recipe& recipe, const std::string& run_dir) {
    auto ctx = make_context(recipe, run_dir, false);
    import_init_model(*ctx);
    auto model = std::make_unique<TrainModel>(ctx->cfg.arch, 1);
    TrainState state;
    REQUIRE(load_checkpoint(ctx->out("pretrain.ckpt"), *model, state));
    return model;
  }

  TEST_CASE("no-answer head: init.model without it starts at W = 0 and answers as the file did") {
    const PlainFile f = plain_pointer_file("amxqa-head");
    const std::string &dir = f.dir, &path = f.path, head_path = dir + "/head.amxqa";
    const ModelSpec& spec = f.spec;
    Recipe recipe = head_import_recipe("import-head", path, /*file_has_head=*/false, /*head=*/true);
    auto imported = imported_model(recipe, dir + "/run");
    TrainModel& model = *imported;
    const Param* W = model.find("no_answer_w");
    REQUIRE(W != nullptr);
    CHECK(std::count(W->w.begin(), W->w.end(), 0.f) == long(W->w.size()));
    // Exported (f32: the file's own weights), it gives the file's margins bit for bit.
    ModelSpec head = spec;
    head.arch = model.arch();
    head.tensors = model.to_tensors(DType::f32);
    write_file(head_path, write_model(head));
    auto plain_model = open_spec(spec), head_model = open_spec(head);
    CHECK(head_model->model->no_answer_head);
    auto ps = make_session(plain_model->model, default_options());
    auto hs = make_session(head_model->model, default_options());
    REQUIRE(ps->status == AMXQA_OK);
    REQUIRE(hs->status == AMXQA_OK);
    for (const char* q : kPointerQuestions) {
      const Asked a = ask(ps->s, q, kPointerPassage), b = ask(hs->s, q, kPointerPassage);
      CHECK(a.info.no_answer_margin == b.info.no_answer_margin);
      CHECK(a.text == b.text);
    }
    // The head is never dropped: its file into a recipe without it is refused.
    Recipe drop = head_import_recipe("drop-head", head_path, /*file_has_head=*/true, /*head=*/false);
    auto ctx2 = make_context(drop, dir + "/run2", false);
    CHECK_THROWS_AS(import_init_model(*ctx2), std::runtime_error);
    // And the recipe key needs the start pointer.
    drop.set("arch.no_answer_head", "true");
    drop.set("arch.start_pointer", "false");
    std::string why;
    try {
      read_run_config(drop);
    } catch (const std::exception& e) {
      why = e.what();
    }
    CHECK(why.find("arch.no_answer_head needs arch.start_pointer") != std::string::npos);
    std::filesystem::remove_all(dir);
  }

  TEST_CASE("question re-read: the trainer's examples are the runtime's prompt; margins and starts agree") {
    ModelSpec spec = pointer_spec();
    spec.arch.question_reread = true;
    TrainModel m(spec.arch, 13);
    spec.tensors = m.to_tensors(DType::f32);
    auto tm = open_spec(spec);
    REQUIRE(tm->model->question_reread);
    spec.arch.question_reread = false;  // the same weights, the question read once
    auto once = open_spec(spec);
    auto ts = make_session(tm->model, pointer_options(1));
    auto os = make_session(once->model, pointer_options(1));
    REQUIRE(ts->status == AMXQA_OK);
    REQUIRE(os->status == AMXQA_OK);
    const TokenizerView& tok = tm->model->tok;
    const std::string p = kPointerPassage;
    size_t moved = 0, starts = 0, abstained = 0;
    for (const char* q : kPointerQuestions) {
      INFO("question: " << q);
      // The trainer's examples: the runtime's prompt (test fixture, from
      // MODEL.md), then the target, predicted from ANS on.
      const std::vector<uint32_t> prompt = prompt_ids(tm->model, q, p);
      const TrainerPrompt t = trainer_prompt(tm->model, q, p);
      const size_t b = p.find("the people"), e = b + 10;
      Example ans, none;
      REQUIRE(build_answer_example(tok, q, p, b, e, 4096, &ans));
      REQUIRE(build_abstain_example(tok, q, p, 4096, &none));
      for (Example* ex : {&ans, &none}) {
        reread_question(tok, ex);
        REQUIRE(ex->tokens.size() > prompt.size());
        CHECK(std::equal(prompt.begin(), prompt.end(), ex->tokens.begin()));
        CHECK(ex->passage_begin == t.opt.passage_begin);
        CHECK(ex->passage_end == t.opt.passage_end);
        for (size_t i = 0; i < ex->mask.size(); ++i) CHECK(ex->mask[i] == (i + 1 >= prompt.size() && i + 1 < ex->tokens.size()));
      }
      CHECK(ans.tokens[ans.answer_begin] == ans.tokens[prompt.size()]);  // the span's first token, in the passage
      CHECK(none.tokens[prompt.size()] == kAbstain);
      // On that prompt the runtime's margin and start are the trainer's.
      const Asked a = ask(ts->s, q, p);
      REQUIRE(a.status == AMXQA_OK);
      const std::vector<StepStats> st = ans_row_stats(m, tm->model, q, p);
      const double margin = trainer_margin(st);
      CHECK(std::fabs(a.info.no_answer_margin - margin) < 1e-3 * std::max(1.0, std::fabs(margin)));
      CHECK(bool(a.info.abstained) == bool(st.back().correct));
      abstained += a.info.abstained;
      if (!a.info.abstained) {
        std::vector<uint32_t> argmax;
        for (uint32_t i = 0; i + 1 < st.size(); ++i)
          if (st[i].correct) argmax.push_back(i);
        REQUIRE(argmax.size() == 1);
        CHECK(ts->s->cand[0] == argmax[0]);
        ++starts;
      }
      const Asked o = ask(os->s, q, p);
      REQUIRE(o.status == AMXQA_OK);
      moved += std::fabs(o.info.no_answer_margin - a.info.no_answer_margin) > 0.05f;
    }
    CHECK(moved == 4);  // the re-read is live
    CHECK(starts + abstained == 4);
  }

  TEST_CASE("question re-read: init.model without it continues with it (the same weights), and back") {
    const PlainFile f = plain_pointer_file("amxqa-reread");
    const std::string &dir = f.dir, &path = f.path, rr_path = dir + "/reread.amxqa";
    const ModelSpec& spec = f.spec;
    auto imported = imported_model(
        flag_import_recipe("import-reread", path, "arch.question_reread", false, true), dir + "/run");
    TrainModel& model = *imported;
    REQUIRE(model.arch().question_reread);
    ModelSpec rr = spec;
    rr.arch = model.arch();
    rr.tensors = model.to_tensors(DType::f32);
    size_t same = 0;
    for (const TensorSpec& x : rr.tensors)
      for (const TensorSpec& y : spec.tensors) same += x.name == y.name && x.values == y.values;
    CHECK(same == spec.tensors.size());
    write_file(rr_path, write_model(rr));
    CHECK(open_spec(rr)->model->question_reread);
    CHECK_FALSE(open_spec(spec)->model->question_reread);
    // The flag may be dropped again: no tensor goes with it.
    const auto back = imported_model(
        flag_import_recipe("drop-reread", rr_path, "arch.question_reread", true, false), dir + "/run2");
    CHECK_FALSE(back->arch().question_reread);
    std::filesystem::remove_all(dir);
  }

  TEST_CASE("end pointer: the runtime ends where the trainer's end argmax is") {
  size_t checked = 0, longer = 0;
  for (uint64_t seed : {17u, 18u, 19u, 20u, 21u, 22u}) {
    ModelSpec spec = pointer_spec();
    spec.arch.end_pointer = true;
    TrainModel m(spec.arch, seed);
    spec.tensors = m.to_tensors(DType::f32);
    auto tm = open_spec(spec);
    amxqa_session_options o = pointer_options(256);  // more than the passage: every end is in reach
    o.override_threshold = 1;
    o.no_answer_threshold = INFINITY;  // always a span
    auto ts = make_session(tm->model, o);
    REQUIRE(ts->status == AMXQA_OK);
    const std::string p = kPointerPassage;
    for (const char* q : kPointerQuestions) {
      const Asked a = ask(ts->s, q, p);
      REQUIRE(a.status == AMXQA_OK);
      REQUIRE(!a.info.abstained);
      const uint32_t end = ts->s->cand[0], start = end + 1 - a.info.answer_tokens;
      TrainerPrompt t = trainer_prompt(tm->model, q, p);
      const std::vector<uint32_t>& ids = t.ids;
      LossOptions& opt = t.opt;
      const uint32_t pb = opt.passage_begin, pe = opt.passage_end;
      // The trainer's view: the runtime's start, then each possible end.
      opt.answer_begin = pb + start;
      std::vector<uint32_t> argmax;
      for (uint32_t j = pb + start; j < pe; ++j) {
        std::vector<uint32_t> doc(ids);
        for (uint32_t t = pb + start; t <= j; ++t) doc.push_back(doc[t]);
        doc.push_back(kEot);
        std::vector<uint8_t> mask(doc.size(), 0);
        mask[ids.size() - 1] = mask[ids.size()] = 1;  // the ANS row and the first answer row
        const StepStats st = m.evaluate(doc.data(), doc.size(), mask.data(), opt);
        if (st.end_correct) argmax.push_back(j - pb);
      }
      INFO("question: " << q);
      REQUIRE(argmax.size() == 1);
      CHECK(end == argmax[0]);
      ++checked;
      longer += end > start;
    }
  }
  CHECK(checked == 24);
  CHECK(longer > 0);  // not only one-token spans, where end == start is trivial
  }
}
