// bench_ops.cpp — the model's pieces one at a time, on the reference shape
// (d 256, hd 32, dk 32, E 128, k 4, f 160, V 16384):
//
//   BM_ops_swa_attend/<keys>            one query head over 64 / 256 keys (ops.h)
//   BM_ops_lin_step                     one lin head: S ← aS + kvᵀ, o = Sᵀq (ops.h)
//   BM_ops_moe_route                    top-4 of 128 router logits + gates (ops.h)
//   BM_ops_moe_experts_prefill_<isa>    a 64-row prefill block through 4 experts
//                                       (matmul, relu², matmul) of the model file
//   BM_ops_moe_experts_decode_<isa>     one token through 4 experts (matvec)
//   BM_ops_readout_full_<isa>           all V logits (matvec over tok_emb)
//   BM_ops_readout_masked_<isa>         150 allowed rows (rows_dot), what
//                                       extractive decoding computes
//   BM_ops_tokenizer_encode             amxqa_tokenize over SQuAD dev passages
// Roofline fractions: GFLOP/s against the compute peak of the ISA (the ops.h
// routines are portable C++ and are held to the core's f32 peak), GB/s
// against the read bandwidth of the level that holds the weights. Routing
// and tokenizing have no arithmetic or bandwidth ceiling worth the name: they
// report plain rates.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "amxqa.h"
#include "kernels/kernels.h"
#include "model/model.h"
#include "ops/ops.h"
#include "report/bench_options.h"
#include "support/reference_model.h"

namespace amxqa::bench {
namespace {

std::vector<float> random_floats(size_t n, uint32_t seed, float scale = 1.0f) {
  std::mt19937 g(seed);
  std::uniform_real_distribution<float> u(-scale, scale);
  std::vector<float> v(n);
  for (float& f : v) f = u(g);
  return v;
}

// GFLOP/s; the reporter adds roofline_frac once the rate is final (these
// names carry no ISA, so the ceiling is the core's f32 peak).
void set_flop_counters(benchmark::State& state, double flops_per_iter) {
  const double total = flops_per_iter * double(state.iterations());
  state.counters["GFLOP/s"] = benchmark::Counter(total / 1e9, benchmark::Counter::kIsRate);
}

// Tells the reporter the weights' dtype (it picks the compute ceiling by it).
void set_weight_bits(benchmark::State& state, DType dt) {
  state.counters["weight_bits"] = dt == DType::f32 ? 32.0 : dt == DType::bf16 ? 16.0 : 8.0;
}

// ---- ops.h ---------------------------------------------------------------

constexpr size_t kHd = 32, kDk = 32;

void BM_ops_swa_attend(benchmark::State& state) {
  const size_t n = size_t(state.range(0));
  const auto q = random_floats(kHd, 1), K = random_floats(n * kHd, 2),
             V = random_floats(n * kHd, 3);
  std::vector<float> probs(n), out(kHd);
  for (auto _ : state) {
    ops::swa_attend(q.data(), K.data(), kHd, V.data(), kHd, n, kHd, probs.data(), out.data());
    benchmark::DoNotOptimize(out.data());
  }
  set_flop_counters(state, 4.0 * double(n) * kHd);
}
BENCHMARK(BM_ops_swa_attend)->Arg(64)->Arg(256);

void BM_ops_lin_step(benchmark::State& state) {
  auto S = random_floats(kDk * kHd, 4, 0.1f);
  const auto q = random_floats(kDk, 5), k = random_floats(kDk, 6), v = random_floats(kHd, 7);
  std::vector<float> o(kHd);
  for (auto _ : state) {
    ops::lin_step(S.data(), q.data(), k.data(), v.data(), 0.9f, kDk, kHd, o.data());
    benchmark::DoNotOptimize(o.data());
  }
  set_flop_counters(state, 5.0 * kDk * kHd);  // 3 per state element to update, 2 to read
}
BENCHMARK(BM_ops_lin_step);

void BM_ops_moe_route(benchmark::State& state) {
  const auto r = random_floats(128, 8);
  uint32_t idx[4];
  float gates[4];
  for (auto _ : state) {
    ops::moe_route(r.data(), 128, 4, idx, gates);
    benchmark::DoNotOptimize(idx);
    benchmark::DoNotOptimize(gates);
  }
  state.counters["routes/s"] =
      benchmark::Counter(double(state.iterations()), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_ops_moe_route);

// ---- kernels on the model's own weights ----------------------------------

struct IsaCase {
  const char* name;
  amxqa_isa isa;
};
const IsaCase kIsas[] = {{"scalar", AMXQA_ISA_SCALAR},
                         {"avx2", AMXQA_ISA_AVX2},
                         {"avx512", AMXQA_ISA_AVX512},
                         {"amx", AMXQA_ISA_AMX}};

// The model and kernel table, or nullptr after SkipWithError.
const ReferenceModel* model_and_table(benchmark::State& state, amxqa_isa isa, const Kernels** k) {
  *k = kernels_for_isa(isa);
  if (!*k) {
    state.SkipWithError("architecture unsupported");
    return nullptr;
  }
  std::string error;
  const ReferenceModel* ref = reference_model(&error);
  if (!ref) state.SkipWithError(error.c_str());
  return ref;
}

const LayerWeights* first_moe_layer(const amxqa_model& m) {
  for (uint32_t l = 0; l < m.n_layers; ++l)
    if (m.layers[l].moe) return &m.layers[l];
  return nullptr;
}

const uint32_t kExperts[4] = {0, 37, 64, 101};  // any four distinct experts

void BM_ops_moe_experts_prefill(benchmark::State& state, amxqa_isa isa) {
  const Kernels* k = nullptr;
  const ReferenceModel* ref = model_and_table(state, isa, &k);
  if (!ref) return;
  const amxqa_model& m = *ref->model;
  const LayerWeights* L = first_moe_layer(m);
  if (!L || m.moe_experts < 128 || m.moe_top_k != 4)
    return state.SkipWithError("model has no E=128 k=4 MoE layer");
  const size_t rows = 64, d = m.d_model, f = m.moe_d_ff;
  const auto X = random_floats(rows * d, 9);
  std::vector<float> H(rows * f), Y(rows * d);
  for (auto _ : state) {
    for (uint32_t e : kExperts) {
      k->matmul(expert_view(L->moe_w1, e, uint32_t(f)), X.data(), d, rows, H.data(), f);
      ops::relu2(H.data(), H.size(), H.data());
      k->matmul(expert_view(L->moe_w2, e, uint32_t(d)), H.data(), f, rows, Y.data(), d);
    }
    benchmark::DoNotOptimize(Y.data());
  }
  state.counters["GFLOP/s"] = benchmark::Counter(
      4.0 * 2.0 * double(rows) * 2.0 * double(f) * double(d) * double(state.iterations()) / 1e9,
      benchmark::Counter::kIsRate);
  set_weight_bits(state, L->moe_w1.dtype);
  state.SetLabel(k->name);
}

void BM_ops_moe_experts_decode(benchmark::State& state, amxqa_isa isa) {
  const Kernels* k = nullptr;
  const ReferenceModel* ref = model_and_table(state, isa, &k);
  if (!ref) return;
  const amxqa_model& m = *ref->model;
  const LayerWeights* L = first_moe_layer(m);
  if (!L || m.moe_experts < 128 || m.moe_top_k != 4)
    return state.SkipWithError("model has no E=128 k=4 MoE layer");
  const size_t d = m.d_model, f = m.moe_d_ff;
  const auto x = random_floats(d, 10);
  std::vector<float> h(f), y(d);
  uint64_t bytes = 0;
  for (uint32_t e : kExperts)
    bytes += weight_view_bytes(expert_view(L->moe_w1, e, uint32_t(f))) +
             weight_view_bytes(expert_view(L->moe_w2, e, uint32_t(d)));
  for (auto _ : state) {
    for (uint32_t e : kExperts) {
      k->matvec(expert_view(L->moe_w1, e, uint32_t(f)), x.data(), h.data());
      ops::relu2(h.data(), f, h.data());
      k->matvec(expert_view(L->moe_w2, e, uint32_t(d)), h.data(), y.data());
    }
    benchmark::DoNotOptimize(y.data());
  }
  state.counters["GB/s"] = benchmark::Counter(double(bytes) * double(state.iterations()) / 1e9,
                                              benchmark::Counter::kIsRate);
  state.counters["bytes"] = double(bytes);
  state.SetLabel(k->name);
}

void BM_ops_readout_full(benchmark::State& state, amxqa_isa isa) {
  const Kernels* k = nullptr;
  const ReferenceModel* ref = model_and_table(state, isa, &k);
  if (!ref) return;
  const amxqa_model& m = *ref->model;
  const auto x = random_floats(m.d_model, 11);
  std::vector<float> logits(m.vocab_size);
  for (auto _ : state) {
    k->matvec(m.tok_emb, x.data(), logits.data());
    benchmark::DoNotOptimize(logits.data());
  }
  const double bytes = double(weight_view_bytes(m.tok_emb));
  state.counters["GB/s"] =
      benchmark::Counter(bytes * double(state.iterations()) / 1e9, benchmark::Counter::kIsRate);
  state.counters["bytes"] = bytes;
  state.counters["rows"] = double(m.vocab_size);
  state.SetLabel(k->name);
}

void BM_ops_readout_masked(benchmark::State& state, amxqa_isa isa) {
  const Kernels* k = nullptr;
  const ReferenceModel* ref = model_and_table(state, isa, &k);
  if (!ref) return;
  const amxqa_model& m = *ref->model;
  const size_t n = 150;  // distinct ids of a typical SQuAD passage
  std::vector<uint32_t> ids;
  std::vector<uint8_t> used(m.vocab_size, 0);
  std::mt19937 g(12);
  while (ids.size() < n && ids.size() + 5 < m.vocab_size) {
    const uint32_t id = 5 + g() % (m.vocab_size - 5);
    if (!used[id]) used[id] = 1, ids.push_back(id);
  }
  const auto x = random_floats(m.d_model, 13);
  std::vector<float> out(ids.size());
  for (auto _ : state) {
    k->rows_dot(m.tok_emb, ids.data(), ids.size(), x.data(), out.data());
    benchmark::DoNotOptimize(out.data());
  }
  const double bytes = double(weight_view_bytes(m.tok_emb)) / m.vocab_size * double(ids.size());
  state.counters["GB/s"] =
      benchmark::Counter(bytes * double(state.iterations()) / 1e9, benchmark::Counter::kIsRate);
  state.counters["bytes"] = bytes;
  state.counters["rows"] = double(ids.size());
  state.SetLabel(k->name);
}

void BM_ops_tokenizer_encode(benchmark::State& state) {
  std::string error;
  const ReferenceModel* ref = reference_model(&error);
  if (!ref) return state.SkipWithError(error.c_str());
  const auto& pairs = squad_dev_pairs(&error);
  if (pairs.empty()) return state.SkipWithError(error.c_str());
  const size_t limit = quick_mode() ? (256u << 10) : (64u << 20);
  std::string text;
  for (const QaPair& p : pairs) {
    if (text.size() >= limit) break;
    text += p.passage;
    text += "\n\n";
  }
  std::vector<uint32_t> ids(text.size() + 1);
  size_t tokens = 0;
  for (auto _ : state) {
    tokens = amxqa_tokenize(ref->model, text.data(), text.size(), ids.data(), ids.size());
    benchmark::DoNotOptimize(ids.data());
  }
  state.SetBytesProcessed(int64_t(text.size()) * state.iterations());
  state.counters["MB/s"] = benchmark::Counter(
      double(text.size()) * double(state.iterations()) / 1e6, benchmark::Counter::kIsRate);
  state.counters["bytes_per_token"] = double(text.size()) / double(tokens ? tokens : 1);
}

[[maybe_unused]] const bool kRegistered = [] {
  for (const IsaCase& c : kIsas) {
    const std::string s = std::string("_") + c.name;
    benchmark::RegisterBenchmark(("BM_ops_moe_experts_prefill" + s).c_str(),
                                 BM_ops_moe_experts_prefill, c.isa)
        ->Unit(benchmark::kMicrosecond);
    benchmark::RegisterBenchmark(("BM_ops_moe_experts_decode" + s).c_str(),
                                 BM_ops_moe_experts_decode, c.isa)
        ->Unit(benchmark::kMicrosecond);
    benchmark::RegisterBenchmark(("BM_ops_readout_full" + s).c_str(), BM_ops_readout_full, c.isa)
        ->Unit(benchmark::kMicrosecond);
    benchmark::RegisterBenchmark(("BM_ops_readout_masked" + s).c_str(), BM_ops_readout_masked,
                                 c.isa)
        ->Unit(benchmark::kMicrosecond);
  }
  benchmark::RegisterBenchmark("BM_ops_tokenizer_encode", BM_ops_tokenizer_encode)
      ->Unit(benchmark::kMillisecond);
  return true;
}();

}  // namespace
}  // namespace amxqa::bench
