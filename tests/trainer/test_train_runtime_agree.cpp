// test_train_runtime_agree.cpp — what the trainer computes is what ships: a
// TrainModel exported as f32 and opened by the runtime gives the same logits
// as the trainer's own forward pass, with the question-match feature (MODEL.md
// "Question match") on and off. The runtime's prefill sets the feature in
// answer.cpp; here the flags come from the passage range, as in the trainer.
// For a start-pointer model (MODEL.md "Start pointer") the runtime's first
// extractive choice, a passage position, is the one the trainer's loss counts
// as its argmax; with the end pointer (MODEL.md "End pointer") so is the span's
// last position.
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include "model/train_model.h"
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
    ModelSpec spec = make_random_model("tiny", 5);
    spec.arch.question_match = true;
    spec.arch.start_pointer = true;
    TrainModel m(spec.arch, 13);
    spec.tensors = m.to_tensors(DType::f32);
    auto tm = open_spec(spec);
    amxqa_session_options o = default_options();
    o.whole_words = 0;  // the trainer's softmax does not mirror these two runtime rules
    o.use_vocab_mask = 0;
    o.max_answer_tokens = 1;  // step 1 only: s->cand[0] is the chosen start
    auto ts = make_session(tm->model, o);
    REQUIRE(ts->status == AMXQA_OK);
    const std::string p = kPointerPassage;
    size_t starts = 0;
    for (const char* q : kPointerQuestions) {
      const Asked a = ask(ts->s, q, p);
      REQUIRE(a.status == AMXQA_OK);
      const std::vector<uint32_t> ids = prompt_ids(tm->model, q, p);
      const uint32_t np = static_cast<uint32_t>(encode_text(tm->model, p).size());
      const uint32_t pe = static_cast<uint32_t>(ids.size()) - 1, pb = pe - np;
      // The trainer's view: one document per possible start, loss on the ANS row only.
      std::vector<uint32_t> doc(ids);
      doc.push_back(0);
      std::vector<uint8_t> mask(doc.size(), 0);
      mask[ids.size() - 1] = 1;
      LossOptions opt;
      opt.kind = LossKind::extractive;
      opt.passage_begin = pb;
      opt.passage_end = pe;
      std::vector<uint32_t> argmax;
      for (uint32_t i = pb; i < pe; ++i) {
        doc.back() = doc[i];
        opt.answer_begin = i;
        if (m.evaluate(doc.data(), doc.size(), mask.data(), opt).correct) argmax.push_back(i - pb);
      }
      doc.back() = kAbstain;
      opt.answer_begin = 0;
      const bool trainer_abstains = m.evaluate(doc.data(), doc.size(), mask.data(), opt).correct;
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

  TEST_CASE("end pointer: the runtime ends where the trainer's end argmax is") {
  size_t checked = 0, longer = 0;
  for (uint64_t seed : {17u, 18u, 19u, 20u, 21u, 22u}) {
    ModelSpec spec = make_random_model("tiny", 5);
    spec.arch.question_match = true;
    spec.arch.start_pointer = true;
    spec.arch.end_pointer = true;
    TrainModel m(spec.arch, seed);
    spec.tensors = m.to_tensors(DType::f32);
    auto tm = open_spec(spec);
    amxqa_session_options o = default_options();
    o.whole_words = 0;  // the trainer's softmax does not mirror these two runtime rules
    o.use_vocab_mask = 0;
    o.max_answer_tokens = 256;  // more than the passage: every end is in reach
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
      const std::vector<uint32_t> ids = prompt_ids(tm->model, q, p);
      const uint32_t np = static_cast<uint32_t>(encode_text(tm->model, p).size());
      const uint32_t pe = static_cast<uint32_t>(ids.size()) - 1, pb = pe - np;
      // The trainer's view: the runtime's start, then each possible end.
      LossOptions opt;
      opt.kind = LossKind::extractive;
      opt.passage_begin = pb;
      opt.passage_end = pe;
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
