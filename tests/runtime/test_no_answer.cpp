// test_no_answer.cpp — the no-answer decision (schemas/MODEL.md "No-answer
// decision"): abstain iff no start is allowed or the margin exceeds the
// threshold (or the chosen span is only white space: never an empty answer); the threshold comes from the model's calibration, a session
// option or amxqa_session_set_threshold; probability is a probability; the
// output structs honour struct_size; white-space questions are empty. The
// no-answer head (MODEL.md "No-answer head") moves the margin, gives the same
// bits on every backend, allocates nothing, and leaves files without it as
// they were.
#include <cmath>

#include "amxqa_generated.h"
#include "support/alloc_counter.h"
#include "support/session_fixture.h"

using namespace amxqa;
using namespace amxqa::test;

namespace {

std::unique_ptr<TestModel> pointer_model(float calibrated = NAN) {
  ModelSpec spec = make_random_model("tiny", 7);
  spec.arch.start_pointer = true;
  if (!std::isnan(calibrated)) {
    spec.calibration.present = true;
    spec.calibration.no_answer_threshold = calibrated;
    spec.calibration.method = "test";
  }
  return open_spec(spec);
}

// A bf16 start-pointer model, with the no-answer head and a nonzero
// no_answer_w when `head` (the same weights otherwise).
ModelSpec head_spec(bool head) {
  ModelSpec spec = make_random_model("tiny", 7, DType::bf16);
  spec.arch.start_pointer = true;
  spec.arch.no_answer_head = head;
  if (head) {
    const uint32_t d = spec.arch.d_model;
    TensorSpec w;
    w.name = "no_answer_w";
    w.shape = {d, d};
    Rng r{19};
    for (uint32_t i = 0; i < d * d; ++i) w.values.push_back((float(r.next() >> 40) / 16777216.f - 0.5f) * 0.1f);
    spec.tensors.push_back(std::move(w));
  }
  return spec;
}

amxqa_session_options with_threshold(float t) {
  amxqa_session_options o = default_options();
  o.override_threshold = 1;
  o.no_answer_threshold = t;
  return o;
}

struct Pair {
  std::string q, p;
};
std::vector<Pair> pairs(size_t n) {
  Rng r{11};
  std::vector<Pair> out;
  for (size_t i = 0; i < n; ++i) out.push_back({random_text(r, 3 + r.below(6)), random_text(r, 8 + r.below(40))});
  return out;
}

// Whether the span the session picks for pr is only white space: its stream
// emits that span's bytes, which amxqa_answer then reports as an abstention
// (amxqa.h amxqa_answer: never an empty answer that is not an abstention).
bool white_space_span(amxqa_session* s, const Pair& pr) {
  std::string bytes;
  amxqa_answer_info info = amxqa_answer_info_init();
  const amxqa_token_fn collect = [](void* user, const char* b, size_t n) {
    static_cast<std::string*>(user)->append(b, n);
    return 0;
  };
  amxqa_answer_stream(s, pr.q.data(), pr.q.size(), pr.p.data(), pr.p.size(), collect, &bytes, &info);
  return !bytes.empty() && bytes.find_first_not_of(" \t\n\r\f\v") == std::string::npos;
}

}  // namespace

TEST_SUITE("unit") {

TEST_CASE("no-answer decision: abstain iff margin > threshold, on pointer and id models") {
  for (bool pointer : {true, false}) {
    CAPTURE(pointer);
    auto tm = pointer ? pointer_model() : open_random("tiny");
    auto plain = make_session(tm->model, default_options());
    REQUIRE(plain->status == AMXQA_OK);
    for (const Pair& pr : pairs(24)) {
      const Asked a = ask(plain->s, pr.q, pr.p);
      REQUIRE(a.status == AMXQA_OK);
      CHECK(a.info.no_answer_threshold == 0.f);
      CHECK(bool(a.info.abstained) == (a.info.no_answer_margin > 0.f || white_space_span(plain->s, pr)));
      CHECK(a.info.probability >= 0.f);
      CHECK(a.info.probability <= 1.f);
      // Move the threshold to either side of this answer's margin.
      const float m = a.info.no_answer_margin;
      REQUIRE(std::isfinite(m));
      for (float t : {m - 0.5f, m + 0.5f}) {
        auto s = make_session(tm->model, with_threshold(t));
        REQUIRE(s->status == AMXQA_OK);
        const Asked b = ask(s->s, pr.q, pr.p);
        REQUIRE(b.status == AMXQA_OK);
        CHECK(b.info.no_answer_threshold == t);
        CHECK(b.info.no_answer_margin == m);  // the threshold never changes the scores
        CHECK(bool(b.info.abstained) == (t < m || white_space_span(s->s, pr)));
        CHECK(b.info.probability >= 0.f);
        CHECK(b.info.probability <= 1.f);
      }
    }
  }
}

TEST_CASE("no-answer threshold: +inf never abstains, a very low one always does") {
  auto tm = pointer_model();
  auto never = make_session(tm->model, with_threshold(INFINITY));
  auto always = make_session(tm->model, with_threshold(-1e30f));
  REQUIRE(never->status == AMXQA_OK);
  REQUIRE(always->status == AMXQA_OK);
  for (const Pair& pr : pairs(24)) {
    const Asked a = ask(never->s, pr.q, pr.p);
    REQUIRE(a.status == AMXQA_OK);
    // Only a passage with no allowed start (margin +inf) abstains, or a span of only white space.
    CHECK(bool(a.info.abstained) == (std::isinf(a.info.no_answer_margin) || white_space_span(never->s, pr)));
    if (a.info.abstained && !std::isinf(a.info.no_answer_margin))
      CHECK((a.info.span_begin == 0 && a.info.span_end == 0 && a.text.empty()));
    const Asked b = ask(always->s, pr.q, pr.p);
    REQUIRE(b.status == AMXQA_OK);
    CHECK(b.info.abstained == 1);
    CHECK(b.info.probability == doctest::Approx(1.0));
  }
  // An empty passage has no start at all: abstaining is certain.
  const Asked e = ask(never->s, "who?", "");
  CHECK(e.info.abstained == 1);
  CHECK(e.info.probability == doctest::Approx(1.0));
}

TEST_CASE("no-answer threshold: the model's calibration, the option and set_threshold") {
  auto tm = pointer_model(2.5f);
  amxqa_model_info mi = amxqa_model_info_init();
  REQUIRE(amxqa_model_get_info(tm->model, &mi) == AMXQA_OK);
  CHECK(mi.calibrated == 1);
  CHECK(mi.no_answer_threshold == 2.5f);
  CHECK(std::string(mi.calibration_method) == "test");

  auto s = make_session(tm->model, default_options());
  REQUIRE(s->status == AMXQA_OK);
  CHECK(ask(s->s, "who founded it?", "It was founded by Ada in 1969.").info.no_answer_threshold == 2.5f);
  CHECK(amxqa_session_set_threshold(s->s, -3.f) == AMXQA_OK);
  CHECK(ask(s->s, "who founded it?", "It was founded by Ada in 1969.").info.no_answer_threshold == -3.f);
  CHECK(amxqa_session_set_threshold(s->s, NAN) == AMXQA_OK);  // back to the model's
  CHECK(ask(s->s, "who founded it?", "It was founded by Ada in 1969.").info.no_answer_threshold == 2.5f);
  CHECK(amxqa_session_set_threshold(s->s, -INFINITY) == AMXQA_ERR_INVALID_ARGUMENT);
  CHECK(amxqa_session_set_threshold(nullptr, 0.f) == AMXQA_ERR_NULL_ARGUMENT);

  auto o = make_session(tm->model, with_threshold(1.f));
  REQUIRE(o->status == AMXQA_OK);
  CHECK(ask(o->s, "who?", "Ada.").info.no_answer_threshold == 1.f);

  auto plain = open_random("tiny");
  REQUIRE(amxqa_model_get_info(plain->model, &mi) == AMXQA_OK);
  CHECK(mi.calibrated == 0);
  CHECK(mi.no_answer_threshold == 0.f);

  ModelSpec bad = make_random_model("tiny", 7);
  bad.calibration.present = true;
  bad.calibration.no_answer_threshold = NAN;
  CHECK_THROWS(write_model(bad));
}

TEST_CASE("no-answer head: moves the margin, same bits on every backend, allocates nothing") {
  // A file without the flag does not carry the field: its bytes are what
  // writers before the head produced.
  const std::vector<uint8_t> plain_bytes = write_model(head_spec(false));
  const auto* arch = reinterpret_cast<const flatbuffers::Table*>(fb::GetModel(plain_bytes.data())->arch());
  CHECK_FALSE(arch->CheckField(fb::Arch::VT_NO_ANSWER_HEAD));  // (fb::Arch hides its Table base)
  auto head = open_spec(head_spec(true));
  auto plain = open_spec(head_spec(false));
  CHECK(head->model->no_answer_head);
  CHECK(head->model->no_answer_w != nullptr);
  CHECK_FALSE(plain->model->no_answer_head);
  CHECK(plain->model->no_answer_w == nullptr);
  auto p = make_session(plain->model, default_options());
  REQUIRE(p->status == AMXQA_OK);
  std::vector<std::unique_ptr<TestSession>> backends;
  for (amxqa_isa isa : {AMXQA_ISA_SCALAR, AMXQA_ISA_AMX_EMULATED, AMXQA_ISA_AUTO}) {
    backends.push_back(make_session(head->model, default_options(isa)));
    REQUIRE(backends.back()->status == AMXQA_OK);
  }
  size_t moved = 0, abstained = 0, n = 0;
  for (const Pair& pr : pairs(24)) {
    const Asked base = ask(p->s, pr.q, pr.p);
    const Asked a = ask(backends[0]->s, pr.q, pr.p);
    REQUIRE(a.status == AMXQA_OK);
    if (std::isinf(a.info.no_answer_margin)) continue;  // no allowed start: the head is moot
    ++n;
    moved += std::fabs(a.info.no_answer_margin - base.info.no_answer_margin) > 0.05f;
    abstained += a.info.abstained;
    check_same_answers(a, backends, 1, pr.q, pr.p);
  }
  CHECK(n > 12);
  CHECK(moved == n);
  MESSAGE(abstained << " of " << n << " abstained with the head");
  amxqa_answer_info info = amxqa_answer_info_init();
  char out[512];
  const std::vector<Pair> prs = pairs(6);
  AllocScope scope;
  for (const Pair& pr : prs)
    amxqa_answer(backends[0]->s, pr.q.data(), pr.q.size(), pr.p.data(), pr.p.size(), out, sizeof out, &info);
  AMXQA_CHECK_NO_ALLOCATIONS(scope);
}

TEST_CASE("options: NaN or -inf thresholds are rejected; 0.1-sized options still work") {
  auto tm = open_random("tiny");
  Aligned mem(1 << 20);
  amxqa_session* s = nullptr;
  for (float bad : {NAN, -INFINITY}) {
    amxqa_session_options o = with_threshold(bad);
    CHECK(amxqa_session_size(tm->model, &o) == 0);
    CHECK(amxqa_session_init(tm->model, &o, mem.p, mem.n, &s) == AMXQA_ERR_INVALID_ARGUMENT);
  }
  amxqa_session_options old = with_threshold(NAN);  // beyond a 0.1 struct: never read
  old.struct_size = 28;
  auto ts = make_session(tm->model, old);
  REQUIRE(ts->status == AMXQA_OK);
  CHECK(ask(ts->s, "who?", "Ada wrote it.").info.no_answer_threshold == 0.f);
  old.struct_size = 27;
  CHECK(amxqa_session_size(tm->model, &old) == 0);
}

TEST_CASE("output structs: struct_size is checked and bounds what is written") {
  auto tm = open_random("tiny");
  auto ts = make_session(tm->model, default_options());
  REQUIRE(ts->status == AMXQA_OK);
  char out[64];
  amxqa_answer_info info = amxqa_answer_info_init();
  info.struct_size = 0;
  CHECK(amxqa_answer(ts->s, "q", 1, "p", 1, out, sizeof out, &info) == AMXQA_ERR_INVALID_ARGUMENT);
  CHECK(std::string(amxqa_last_error(ts->s)).find("struct_size") != std::string::npos);
  CHECK(amxqa_answer(ts->s, "q", 1, "p", 1, out, sizeof out, nullptr) == AMXQA_OK);  // info stays optional

  amxqa_model_info mi = amxqa_model_info_init();
  mi.struct_size = 4;
  CHECK(amxqa_model_get_info(tm->model, &mi) == AMXQA_ERR_INVALID_ARGUMENT);
  amxqa_cpu_info ci = amxqa_cpu_info_init();
  ci.struct_size = 0;
  CHECK(amxqa_cpu_query(&ci) == AMXQA_ERR_INVALID_ARGUMENT);

  // A caller compiled against a larger (future) struct gets ours and keeps its size.
  struct Bigger {
    amxqa_model_info info;
    uint32_t future_field;
  } big;
  std::memset(&big, 0xab, sizeof big);
  big.info.struct_size = sizeof big;
  REQUIRE(amxqa_model_get_info(tm->model, &big.info) == AMXQA_OK);
  CHECK(big.info.struct_size == sizeof big);
  CHECK(big.future_field == 0xabababab);  // never written past sizeof(amxqa_model_info)
  CHECK(big.info.vocab_size > 0);
}

TEST_CASE("a question of only white space is empty") {
  auto tm = open_random("tiny");
  auto ts = make_session(tm->model, default_options());
  REQUIRE(ts->status == AMXQA_OK);
  CHECK(ask(ts->s, "   ", "Ada wrote it.").status == AMXQA_ERR_EMPTY_QUESTION);
  CHECK(ask(ts->s, " \t\n", "Ada wrote it.").status == AMXQA_ERR_EMPTY_QUESTION);
  CHECK(ask(ts->s, " who? ", "Ada wrote it.").status == AMXQA_OK);
}

}  // TEST_SUITE
