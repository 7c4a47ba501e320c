// test_passage_reader.cpp — the passage reader (schemas/MODEL.md "Passage
// reader"): the pointers' keys read the whole passage, both sides. It moves
// the scores, gives the same answer bytes and margins on every backend (bf16
// and int8 matrices, start, end and no-answer pointers, windows and top-k),
// allocates nothing, and leaves files without it as they were.
#include <cmath>

#include "amxqa_generated.h"
#include "ops/ops.h"  // kReaderHeads
#include "support/alloc_counter.h"
#include "support/session_fixture.h"

using namespace amxqa;
using namespace amxqa::test;

namespace {

// A [rows, cols] tensor of uniform values in ±scale/2, stored as `dt` in the
// layout the writer gives model matrices of that dtype.
TensorSpec random_tensor(const char* name, uint32_t rows, uint32_t cols, uint64_t seed, float scale,
                         DType dt = DType::f32) {
  TensorSpec w;
  w.name = name;
  w.shape = {rows, cols};
  w.dtype = dt;
  if (dt == DType::bf16) w.layout = Layout::vnni2;
  if (dt == DType::i8) w.layout = Layout::vnni4;
  Rng r{seed};
  for (uint32_t i = 0; i < rows * cols; ++i) w.values.push_back((float(r.next() >> 40) / 16777216.f - 0.5f) * scale);
  return w;
}

// A start/end-pointer model with the no-answer head, and the reader's four
// matrices (random, so it is live) when `reader`; the same weights otherwise.
ModelSpec reader_spec(bool reader, DType dt) {
  ModelSpec spec = make_random_model("tiny", 23, dt);
  spec.arch.start_pointer = true;
  spec.arch.end_pointer = true;
  spec.arch.no_answer_head = true;
  spec.arch.passage_reader = reader;
  const uint32_t d = spec.arch.d_model, r = ops::kReaderHeads * spec.arch.head_dim;
  spec.tensors.push_back(random_tensor("no_answer_w", d, d, 19, 0.1f));
  if (reader) {  // matrices: the model's dtype, so every ISA computes the same bits
    spec.tensors.push_back(random_tensor("reader_wq", r, d, 31, 0.5f, dt));
    spec.tensors.push_back(random_tensor("reader_wk", r, d, 37, 0.5f, dt));
    spec.tensors.push_back(random_tensor("reader_wv", r, d, 41, 0.5f, dt));
    spec.tensors.push_back(random_tensor("reader_wo", d, r, 43, 0.5f, dt));
  }
  return spec;
}

struct Pair {
  std::string q, p;
};
std::vector<Pair> pairs(size_t n, size_t max_words) {
  Rng r{29};
  std::vector<Pair> out;
  for (size_t i = 0; i < n; ++i)
    out.push_back({random_text(r, 3 + r.below(6)), random_text(r, 8 + r.below(max_words))});
  return out;
}

// Every backend this CPU runs (x86-64 or aarch64), the scalar oracle first.
std::vector<amxqa_isa> backends() {
  std::vector<amxqa_isa> out = {AMXQA_ISA_SCALAR, AMXQA_ISA_AMX_EMULATED};  // both portable
  amxqa_cpu_info cpu = amxqa_cpu_info_init();
  amxqa_cpu_query(&cpu);
  if (cpu.has_avx2_fma) out.push_back(AMXQA_ISA_AVX2);
  if (cpu.has_avx512) out.push_back(AMXQA_ISA_AVX512);
  if (cpu.has_amx) out.push_back(AMXQA_ISA_AMX);
  if (cpu.has_neon) out.push_back(AMXQA_ISA_NEON);
  if (cpu.has_neon_dotprod) out.push_back(AMXQA_ISA_NEON_DOTPROD);
  return out;
}

}  // namespace

TEST_SUITE("unit") {

TEST_CASE("passage reader: moves the scores, same bits on every backend, allocates nothing") {
  // A file without the flag does not carry the field: its bytes are what
  // writers before the reader produced.
  const std::vector<uint8_t> plain_bytes = write_model(reader_spec(false, DType::bf16));
  const auto* arch = reinterpret_cast<const flatbuffers::Table*>(fb::GetModel(plain_bytes.data())->arch());
  CHECK_FALSE(arch->CheckField(fb::Arch::VT_PASSAGE_READER));
  for (DType dt : {DType::bf16, DType::i8}) {
    CAPTURE(int(dt));
    auto with = open_spec(reader_spec(true, dt));
    auto without = open_spec(reader_spec(false, dt));
    REQUIRE(with->model != nullptr);
    CHECK(with->model->passage_reader);
    CHECK(with->model->reader_wo.data != nullptr);
    CHECK_FALSE(without->model->passage_reader);
    auto plain = make_session(without->model, default_options());
    REQUIRE(plain->status == AMXQA_OK);
    std::vector<std::unique_ptr<TestSession>> sessions;
    for (amxqa_isa isa : backends()) {
      sessions.push_back(make_session(with->model, default_options(isa)));
      REQUIRE(sessions.back()->status == AMXQA_OK);
    }
    size_t moved = 0, n = 0;
    for (const Pair& pr : pairs(24, 40)) {
      const Asked a = ask(sessions[0]->s, pr.q, pr.p);
      REQUIRE(a.status == AMXQA_OK);
      if (std::isinf(a.info.no_answer_margin)) continue;  // no allowed start
      ++n;
      moved += std::fabs(a.info.no_answer_margin - ask(plain->s, pr.q, pr.p).info.no_answer_margin) > 0.05f;
      check_same_answers(a, sessions, 1, pr.q, pr.p);
    }
    CHECK(n > 12);
    CHECK(moved == n);
    amxqa_answer_info info = amxqa_answer_info_init();
    char out[512];
    const std::vector<Pair> prs = pairs(6, 40);
    AllocScope scope;
    for (const Pair& pr : prs)
      amxqa_answer(sessions.back()->s, pr.q.data(), pr.q.size(), pr.p.data(), pr.p.size(), out, sizeof out,
                   &info);
    AMXQA_CHECK_NO_ALLOCATIONS(scope);
  }
}

TEST_CASE("passage reader: windows and top-k agree across backends") {
  auto with = open_spec(reader_spec(true, DType::bf16));
  std::vector<std::unique_ptr<TestSession>> sessions;
  for (amxqa_isa isa : backends()) {
    amxqa_session_options o = default_options(isa);
    o.max_passage_tokens = 48;  // long passages are cut into windows
    o.windows = 1;
    o.max_top_k = 4;
    sessions.push_back(make_session(with->model, o));
    REQUIRE(sessions.back()->status == AMXQA_OK);
  }
  size_t spans = 0;
  for (const Pair& pr : pairs(8, 160)) {
    std::vector<amxqa_span> want(4, amxqa_span_init());
    size_t nw = 0;
    amxqa_answer_info iw = amxqa_answer_info_init();
    REQUIRE(amxqa_answer_topk(sessions[0]->s, pr.q.data(), pr.q.size(), pr.p.data(), pr.p.size(), want.data(),
                              want.size(), &nw, &iw) == AMXQA_OK);
    spans += nw;
    for (size_t b = 1; b < sessions.size(); ++b) {
      std::vector<amxqa_span> got(4, amxqa_span_init());
      size_t ng = 0;
      amxqa_answer_info ig = amxqa_answer_info_init();
      REQUIRE(amxqa_answer_topk(sessions[b]->s, pr.q.data(), pr.q.size(), pr.p.data(), pr.p.size(), got.data(),
                                got.size(), &ng, &ig) == AMXQA_OK);
      CAPTURE(amxqa_isa_name(sessions[b]->s->isa));
      REQUIRE(ng == nw);
      CHECK(ig.no_answer_margin == iw.no_answer_margin);
      for (size_t i = 0; i < nw; ++i) {
        CHECK(got[i].begin == want[i].begin);
        CHECK(got[i].end == want[i].end);
        CHECK(got[i].score == want[i].score);
      }
    }
  }
  CHECK(spans > 0);
}

}  // TEST_SUITE
