// test_backends.cpp — every backend this CPU runs (avx2, avx512, amx, and the
// portable amx-emulated) against the scalar oracle, for f32, bf16 and i8
// weights: prompt logits within a stated tolerance, and the same answers.
//
// Stated logit tolerances (absolute, on logits of standard deviation ~1), see
// kF32MaxError / kQuant* below: f32 weights max 1e-3; bf16 / i8 weights mean
// 0.03 and at most 3% of logits off by more than 0.1. An answer may differ
// from scalar only where the scalar top-2 margin at the first differing step
// is a near-tie (near_tie()); anything else fails.
#include "support/session_fixture.h"

using namespace amxqa;
using namespace amxqa::test;

namespace {

// f32 weights: every backend keeps f32 activations; only the summation order
// differs, so every logit stays within this.
constexpr double kF32MaxError = 1e-3;
// bf16 / i8 weights: the AVX-512 bf16 and AMX tile GEMMs round prefill
// activations to bf16 / int8. That is a small error on almost every logit,
// but a lin head whose q·k is near zero at some position can flip the sign
// of its RMS-normalised output (MODEL.md "lin"), so a rare logit moves by
// O(1): the bound is on the mean and on the share of large errors.
constexpr double kQuantMeanError = 0.03;
constexpr double kQuantLargeError = 0.1, kQuantLargeShare = 0.03;
// Answers may differ only at a scalar top-2 margin below this.
double near_tie(DType dt) { return dt == DType::f32 ? 2 * kF32MaxError : 0.3; }

const amxqa_isa kBackends[] = {AMXQA_ISA_AVX2, AMXQA_ISA_AVX512, AMXQA_ISA_AMX,
                               AMXQA_ISA_AMX_EMULATED};

// The scalar logit margin between the scalar and the backend choices at the
// first step where the two answers differ (0 if they do not differ).
double divergence_margin(amxqa_session* scalar, const std::string& q, const std::string& p,
                         const Asked& a, const Asked& b) {
  const amxqa_model* m = scalar->model;
  size_t j = 0;
  while (j < a.ids.size() && j < b.ids.size() && a.ids[j] == b.ids[j]) ++j;
  const auto choice = [&](const Asked& x) -> uint32_t {
    if (j < x.ids.size()) return x.ids[j];
    return j == 0 ? m->abstain : m->eot;
  };
  const uint32_t ca = choice(a), cb = choice(b);
  if (ca == cb) return 0.0;
  std::vector<uint32_t> seq = prompt_ids(m, q, p);
  seq.insert(seq.end(), a.ids.begin(), a.ids.begin() + long(j));
  const auto z = all_logits(scalar, seq);
  const float* last = z.data() + (seq.size() - 1) * scalar->dim.V;
  return double(last[ca]) - double(last[cb]);
}

}  // namespace

TEST_SUITE("unit") {

TEST_CASE("every backend agrees with scalar: logits and answers, f32/bf16/i8 weights, and f32 re-reading the question") {
  amxqa_cpu_info ci = amxqa_cpu_info_init();
  REQUIRE(amxqa_cpu_query(&ci) == AMXQA_OK);
  MESSAGE("cpu: " << ci.vendor << " / " << ci.model_name << "; avx2 " << int(ci.has_avx2_fma)
                  << " avx512 " << int(ci.has_avx512) << " bf16 " << int(ci.has_avx512_bf16)
                  << " amx " << int(ci.has_amx) << " (" << ci.amx_reason << ")");
  // The last case re-reads the question (MODEL.md "Question re-read"): its
  // longer prompt runs on every backend with the same answers (on fewer
  // questions, and not in sanitizer builds: the kernels are the same).
  const std::pair<DType, bool> cases[] = {
      {DType::f32, false}, {DType::bf16, false}, {DType::i8, false}, {DType::f32, true}};
  for (const auto& [dt, reread] : cases) {
    if (reread && kSanitizedBuild) continue;
    ModelSpec spec = make_random_model("tiny", 100 + uint64_t(dt), dt);
    spec.arch.question_reread = reread;
    auto tm = open_spec(spec);
    auto scalar = make_session(tm->model, default_options(AMXQA_ISA_SCALAR));
    REQUIRE(scalar->status == AMXQA_OK);
    for (amxqa_isa isa : kBackends) {
      auto ts = make_session(tm->model, default_options(isa));
      if (ts->status != AMXQA_OK) {
        CHECK(ts->status == AMXQA_ERR_UNSUPPORTED_ISA);
        continue;
      }
      INFO("backend " << std::string(amxqa_isa_name(isa)) << ", dtype " << int(dt) << ", re-read " << reread);
      Rng r{1234};
      double worst_logit = 0, worst_margin = 0, sum_err = 0;
      size_t n_err = 0, big_err = 0;
      int same = 0, near_ties = 0, total = 0;
      for (int i = 0; i < (reread ? 8 : 25); ++i) {
        const std::string q = random_text(r, 1 + r.below(8));
        const std::string p = random_text(r, 5 + r.below(70));
        const auto ids = prompt_ids(tm->model, q, p);
        const auto za = all_logits(scalar->s, ids), zb = all_logits(ts->s, ids);
        for (size_t k = 0; k < za.size(); ++k) {
          const double e = std::fabs(double(za[k]) - double(zb[k]));
          worst_logit = std::fmax(worst_logit, e);
          sum_err += e;
          ++n_err;
          big_err += e > kQuantLargeError;
        }
        const Asked a = ask(scalar->s, q, p), b = ask(ts->s, q, p);
        REQUIRE(a.status == AMXQA_OK);
        REQUIRE(b.status == AMXQA_OK);
        CHECK(b.info.isa == isa);
        ++total;
        if (a.ids == b.ids && a.info.abstained == b.info.abstained &&
            a.info.stopped_on_eot == b.info.stopped_on_eot) {
          ++same;
          CHECK(a.info.span_begin == b.info.span_begin);
          CHECK(a.info.span_end == b.info.span_end);
          CHECK(a.text == b.text);
          continue;
        }
        const double margin = divergence_margin(scalar->s, q, p, a, b);
        worst_margin = std::fmax(worst_margin, margin);
        CHECK(margin <= near_tie(dt));
        ++near_ties;
      }
      MESSAGE(std::string(amxqa_isa_name(isa)) << " dtype " << int(dt) << ": max |dlogit| " << worst_logit << " mean " << sum_err / n_err << " >0.1: " << big_err << "/" << n_err
                                  << ", same answer " << same << "/" << total
                                  << ", near-tie differences " << near_ties
                                  << " (worst margin " << worst_margin << ")");
      if (dt == DType::f32) {
        CHECK(worst_logit <= kF32MaxError);
      } else {
        CHECK(sum_err / double(n_err) <= kQuantMeanError);
        CHECK(double(big_err) / double(n_err) <= kQuantLargeShare);
      }
      if (dt == DType::f32) CHECK(same == total);
    }
  }
}

TEST_CASE("AMXQA_MAX_ISA caps the automatic choice") {
  auto tm = open_random("tiny");
  const char* old = std::getenv("AMXQA_MAX_ISA");
  const std::string saved = old ? old : "";
  setenv("AMXQA_MAX_ISA", "scalar", 1);
  auto ts = make_session(tm->model, default_options(AMXQA_ISA_AUTO));
  REQUIRE(ts->status == AMXQA_OK);
  CHECK(amxqa_session_isa(ts->s) == AMXQA_ISA_SCALAR);
  amxqa_cpu_info ci = amxqa_cpu_info_init();
  REQUIRE(amxqa_cpu_query(&ci) == AMXQA_OK);
  CHECK(std::string(ci.max_isa_env) == "scalar");
  CHECK(ci.best == AMXQA_ISA_SCALAR);
  // An explicit ISA above the cap is lowered, never refused when available.
  if (ci.has_avx2_fma) {
    auto t2 = make_session(tm->model, default_options(AMXQA_ISA_AVX2));
    CHECK(t2->status == AMXQA_OK);
    CHECK(amxqa_session_isa(t2->s) == AMXQA_ISA_SCALAR);
  }
  setenv("AMXQA_MAX_ISA", "AVX2", 1);  // case-insensitive
  auto t3 = make_session(tm->model, default_options(AMXQA_ISA_AUTO));
  CHECK(amxqa_session_isa(t3->s) == (ci.has_avx2_fma ? AMXQA_ISA_AVX2 : AMXQA_ISA_SCALAR));
  setenv("AMXQA_MAX_ISA", "bogus", 1);  // ignored, with a message on the session
  auto t4 = make_session(tm->model, default_options(AMXQA_ISA_AUTO));
  REQUIRE(t4->status == AMXQA_OK);
  CHECK(std::string(amxqa_last_error(t4->s)).find("AMXQA_MAX_ISA") != std::string::npos);
  // amx-emulated is explicit-only and not capped.
  setenv("AMXQA_MAX_ISA", "scalar", 1);
  auto t5 = make_session(tm->model, default_options(AMXQA_ISA_AMX_EMULATED));
  CHECK(t5->status == AMXQA_OK);
  CHECK(amxqa_session_isa(t5->s) == AMXQA_ISA_AMX_EMULATED);
  if (old)
    setenv("AMXQA_MAX_ISA", saved.c_str(), 1);
  else
    unsetenv("AMXQA_MAX_ISA");
}

}  // TEST_SUITE

TEST_SUITE("integration") {

// Rough timing of one answer on the reference shape (random weights) per backend.
TEST_CASE("reference shape: one answer per backend (timing printout)") {
  for (DType dt : {DType::f32, DType::bf16}) {
    auto tm = open_random("reference", dt, 5);
    Rng r{77};
    const std::string p = random_text(r, 45);
    const std::string q = "who founded the river north of Paris?";
    const size_t np = encode_text(tm->model, p).size();
    for (amxqa_isa isa : {AMXQA_ISA_SCALAR, AMXQA_ISA_AVX2, AMXQA_ISA_AVX512, AMXQA_ISA_AMX,
                          AMXQA_ISA_AMX_EMULATED}) {
      if (isa == AMXQA_ISA_AMX_EMULATED && dt == DType::f32) continue;  // f32 never tiles
      auto ts = make_session(tm->model, default_options(isa));
      if (ts->status != AMXQA_OK) continue;
      ask(ts->s, q, p);  // warm caches
      const Asked a = ask(ts->s, q, p);
      REQUIRE(a.status == AMXQA_OK);
      MESSAGE("reference " << std::string(dt == DType::f32 ? "f32" : "bf16") << " " << std::string(amxqa_isa_name(isa))
                           << ": passage " << np << " tokens, prompt prefill "
                           << a.info.prefill_ns / 1e6 << " ms, decode " << a.info.decode_ns / 1e6
                           << " ms (" << a.info.answer_tokens << " answer tokens"
                           << std::string(a.info.abstained ? ", abstained" : "") << ")");
      CHECK(a.info.passage_tokens == np);
    }
  }
}

}  // TEST_SUITE
