// test_amx_session.cpp — whole sessions on plain row-major bf16 weights (the
// layout of the shipped bf16 model, sdk/models/qa-v2.2-bf16.amxqa) on the AMX
// tile path: the portable amx-emulated backend everywhere, and real AMX too
// where the CPU has it. Prefill matmuls (m >= 16) of such weights run as
// Yᵀ = W · Xᵀ on tiles (amx_bf16_plain_gemm_16x16); they are compared with
// the scalar oracle under test_backends.cpp's stated bf16 tolerances: logits
// mean |error| <= 0.03 and at most 3% of logits off by more than 0.1; an
// answer may differ only where the scalar top-2 margin at the first
// differing step is below 0.3 (a near tie). amxqa_answer allocates nothing.
#include <fstream>
#include <iterator>

#include "kernels/amx/tile_emulator.h"
#include "support/session_fixture.h"
#include "support/alloc_counter.h"

using namespace amxqa;
using namespace amxqa::test;

namespace {

constexpr double kMeanError = 0.03, kLargeError = 0.1, kLargeShare = 0.03, kNearTie = 0.3;

// A random model with every bf16 matrix plain (make_random_model packs vnni2).
std::unique_ptr<TestModel> open_plain_bf16(const char* shape, uint64_t seed) {
  ModelSpec spec = make_random_model(shape, seed, DType::bf16);
  size_t repacked = 0;
  for (TensorSpec& t : spec.tensors)
    if (t.layout == Layout::vnni2) {
      t.layout = Layout::plain;
      ++repacked;
    }
  REQUIRE(repacked > 0);
  return open_spec(spec);
}

// The shipped bf16 model (v2.2; the default model is its int8 export), read
// into 64-byte aligned memory.
std::unique_ptr<TestModel> open_bf16_model() {
  std::ifstream f(std::string(AMXQA_SOURCE_DIR) + "/sdk/models/qa-v2.2-bf16.amxqa", std::ios::binary);
  REQUIRE(f.good());
  const std::string bytes{std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
  auto tm = std::make_unique<TestModel>();
  tm->file = std::make_unique<Aligned>(bytes.size());
  std::memcpy(tm->file->p, bytes.data(), bytes.size());
  tm->storage = std::make_unique<Aligned>(AMXQA_MODEL_STORAGE_BYTES);
  REQUIRE(amxqa_model_open(tm->file->p, bytes.size(), tm->storage->p, &tm->model) == AMXQA_OK);
  return tm;
}

// Every present layer matrix of the model is bf16 in `lay` (the premise of
// the shipped-model case: plain weights are what reaches the new tile path).
void check_layer_layouts(const amxqa_model* m, Layout lay) {
  size_t seen = 0;
  for (uint32_t l = 0; l < m->n_layers; ++l) {
    const LayerWeights& w = m->layers[l];
    for (const WeightView* v : {&w.wq, &w.wk, &w.wv, &w.wo, &w.w1, &w.w2, &w.moe_w1, &w.moe_w2}) {
      if (!v->data) continue;
      CHECK(v->dtype == DType::bf16);
      CHECK(v->layout == lay);
      ++seen;
    }
  }
  CHECK(seen > 0);
}

// Scalar logit of the scalar choice minus that of the backend's choice at the
// first answer step where they differ (0 when the answers are the same).
double first_difference_margin(amxqa_session* scalar, const std::vector<uint32_t>& prompt,
                               const Asked& ref, const Asked& got) {
  const amxqa_model* m = scalar->model;
  size_t step = 0;
  while (step < ref.ids.size() && step < got.ids.size() && ref.ids[step] == got.ids[step]) ++step;
  auto pick = [&](const Asked& x) {
    return step < x.ids.size() ? x.ids[step] : (step == 0 ? m->abstain : m->eot);
  };
  if (pick(ref) == pick(got)) return 0.0;
  std::vector<uint32_t> seq = prompt;
  seq.insert(seq.end(), ref.ids.begin(), ref.ids.begin() + long(step));
  const std::vector<float> z = all_logits(scalar, seq);
  const float* row = z.data() + (seq.size() - 1) * scalar->dim.V;
  return double(row[pick(ref)]) - double(row[pick(got)]);
}

struct Agreement {
  double sum_err = 0, worst_margin = 0;
  size_t n_err = 0, big_err = 0;
  int same = 0, total = 0;
};

// One question on the scalar session and on `ts`: logits of the whole prompt,
// then the answers; amxqa_answer on `ts` must allocate nothing.
void compare(amxqa_session* scalar, amxqa_session* ts, const std::string& q, const std::string& p,
             Agreement& ag) {
  const std::vector<uint32_t> ids = prompt_ids(scalar->model, q, p);
  REQUIRE(ids.size() >= 16);  // at least one prefill block reaches the tiles
  const std::vector<float> za = all_logits(scalar, ids), zb = all_logits(ts, ids);
  for (size_t k = 0; k < za.size(); ++k) {
    const double e = std::fabs(double(za[k]) - double(zb[k]));
    ag.sum_err += e;
    ag.big_err += e > kLargeError;
    ++ag.n_err;
  }
  std::vector<char> out(4096, '\0');
  amxqa_answer_info info = amxqa_answer_info_init();
  {
    AllocScope scope;
    REQUIRE(amxqa_answer(ts, q.data(), q.size(), p.data(), p.size(), out.data(), out.size(),
                         &info) == AMXQA_OK);
    AMXQA_CHECK_NO_ALLOCATIONS(scope);
  }
  const Asked a = ask(scalar, q, p), b = ask(ts, q, p);
  REQUIRE(a.status == AMXQA_OK);
  REQUIRE(b.status == AMXQA_OK);
  ++ag.total;
  if (a.ids == b.ids && a.info.abstained == b.info.abstained) {
    ++ag.same;
    CHECK(a.text == b.text);
    return;
  }
  const double margin = first_difference_margin(scalar, ids, a, b);
  ag.worst_margin = std::fmax(ag.worst_margin, margin);
  CHECK(margin <= kNearTie);
}

void check_agreement(const char* what, amxqa_isa isa, const Agreement& ag) {
  MESSAGE(std::string(what) << " on " << std::string(amxqa_isa_name(isa)) << ": logits mean |d| "
                           << ag.sum_err / double(ag.n_err) << ", >0.1: " << ag.big_err << "/"
                           << ag.n_err << "; same answer " << ag.same << "/" << ag.total
                           << " (worst near-tie margin " << ag.worst_margin << ")");
  CHECK(ag.sum_err / double(ag.n_err) <= kMeanError);
  CHECK(double(ag.big_err) / double(ag.n_err) <= kLargeShare);
}

const amxqa_isa kTileBackends[] = {AMXQA_ISA_AMX_EMULATED, AMXQA_ISA_AMX};

}  // namespace

TEST_SUITE("amx") {

TEST_CASE("plain bf16 model: the AMX tile path agrees with scalar, and allocates nothing") {
  auto tm = open_plain_bf16("tiny", 301);
  check_layer_layouts(tm->model, Layout::plain);
  auto scalar = make_session(tm->model, default_options(AMXQA_ISA_SCALAR));
  REQUIRE(scalar->status == AMXQA_OK);
  for (amxqa_isa isa : kTileBackends) {
    auto ts = make_session(tm->model, default_options(isa));
    if (ts->status != AMXQA_OK) {  // no usable AMX on this CPU
      CHECK(ts->status == AMXQA_ERR_UNSUPPORTED_ISA);
      continue;
    }
    Agreement ag;
    Rng r{4321};
    for (int i = 0; i < 16; ++i) {
      // Passages of 10..109 words: one ragged prefill block, or several.
      const std::string q = random_text(r, 1 + r.below(8));
      const std::string p = random_text(r, 10 + r.below(100));
      amx_emu::tilerelease();
      compare(scalar->s, ts->s, q, p, ag);
      // Only plain bf16 matrices reach the tile kernels in this model.
      if (isa == AMXQA_ISA_AMX_EMULATED) CHECK(amx_emu::tiles_configured());
    }
    check_agreement("plain bf16 tiny model", isa, ag);
  }
}

TEST_CASE("shipped bf16 model (plain): the AMX tile path agrees with scalar") {
  auto tm = open_bf16_model();
  check_layer_layouts(tm->model, Layout::plain);
  auto scalar = make_session(tm->model, default_options(AMXQA_ISA_SCALAR));
  REQUIRE(scalar->status == AMXQA_OK);
  std::ifstream f(std::string(AMXQA_SOURCE_DIR) + "/samples/data/lighthouse.txt");
  const std::string passage{std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
  REQUIRE(!passage.empty());
  for (amxqa_isa isa : kTileBackends) {
    auto ts = make_session(tm->model, default_options(isa));
    if (ts->status != AMXQA_OK) {
      CHECK(ts->status == AMXQA_ERR_UNSUPPORTED_ISA);
      continue;
    }
    Agreement ag;
    for (const char* q : {"Who designed the present tower?", "When was the present tower completed?"}) {
      amx_emu::tilerelease();
      compare(scalar->s, ts->s, q, passage, ag);
      if (isa == AMXQA_ISA_AMX_EMULATED) CHECK(amx_emu::tiles_configured());
    }
    check_agreement("shipped bf16 model", isa, ag);
  }
}

}  // TEST_SUITE("amx")
