// bench_train.cpp — training throughput of the paper's reference shape on one
// core: TrainModel::forward_backward + adamw_step on one 1,024-token document
// with sampled softmax (pool 1,024), the trainer's pretraining step.
//
//   BM_train_step_reference   tok/s; GFLOP/s (3 × the forward FLOPs: forward,
//                             input and weight gradients) and its fraction of
//                             the core's f32 peak (the trainer runs f32 sgemm);
//                             seconds per stage as fractions of the step.
// The one benchmark that needs the trainer: amxqa-bench links the trainer
// library (amxqa_trainer_lib, model/train_model.h) explicitly when it is built
// (AMXQA_HAVE_TRAINER); without it the benchmark reports why it did not run.
#include <benchmark/benchmark.h>

#ifdef AMXQA_HAVE_TRAINER
#include <algorithm>
#include <vector>

#include "format/random_model.h"
#include "model/train_model.h"

namespace amxqa::bench {
namespace {

constexpr size_t kSeq = 1024;
constexpr uint32_t kPool = 1024;

// Forward FLOPs of one kSeq-token document (see support/reference_model.h
// for the same count on a model file), readout over targets ∪ pool.
double forward_flops(const ArchConfig& a) {
  const double d = a.d_model, H = a.n_heads, G = a.n_kv_heads, hd = a.head_dim, dk = a.lin_state;
  const double n = kSeq, W = a.window;
  const double keys = n <= W ? n * (n + 1) / 2 : W * (W + 1) / 2 + (n - W) * W;
  double per_token = 0, attention = 0;
  for (uint32_t l = 0; l < a.n_layers; ++l) {
    const bool lin = a.layer_kinds[l] == kLayerLin;
    double params = lin ? (2 * H * dk * d + 2 * H * hd * d) : (2 * H * hd * d + 2 * G * hd * d);
    params += a.is_moe(l) ? a.moe_top_k * 2.0 * a.moe_d_ff * d : 2.0 * a.d_ff * d;
    per_token += 2 * params;
    if (lin)
      per_token += 2 * H * d + 5 * H * dk * hd;
    else
      attention += 4 * H * hd * keys;
  }
  const double readout_rows = std::min<double>(a.vocab_size, kPool + n);
  return per_token * n + attention + 2 * d * readout_rows * n;
}

void train_step_reference(benchmark::State& state);

void BM_train_step_reference(benchmark::State& state) {
  train_step_reference(state);
}

// The same step in the trainer's bf16 compute mode on AMX tiles (operands
// rounded to bf16, f32 accumulation and master weights).
void BM_train_step_reference_amx(benchmark::State& state) {
  if (!train::set_bf16_compute(true) || !train::bf16_compute_on_tiles()) {
    train::set_bf16_compute(false);
    state.SkipWithError("architecture unsupported");
    return;
  }
  train_step_reference(state);
  train::set_bf16_compute(false);
  state.counters["weight_bits"] = 16;
  state.SetLabel("amx_bf16 tiles");
}

void train_step_reference(benchmark::State& state) {
  const ArchConfig arch = make_random_model("reference", 1).arch;
  train::TrainModel model(arch, 1);
  std::vector<uint32_t> tokens{kBos};
  uint64_t s = 9;
  while (tokens.size() < kSeq) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    tokens.push_back(kByteBase + uint32_t((s >> 33) % (arch.vocab_size - kByteBase)));
  }
  const std::vector<uint8_t> mask(kSeq, 1);
  train::LossOptions opt;
  opt.kind = train::LossKind::sampled;
  opt.sampled_pool = kPool;
  train::AdamWConfig cfg;
  uint64_t step = 1;
  auto one_step = [&] {
    model.zero_grad();
    opt.seed = step;
    const train::StepStats st =
        model.forward_backward(tokens.data(), tokens.size(), mask.data(), opt);
    benchmark::DoNotOptimize(st.loss_sum);
    train::adamw_step(model.params(), cfg, step, train::lr_at(cfg, step, 1000));
    ++step;
  };
  one_step();  // warm-up: scratch buffers, first-touch pages
  model.reset_stage_times();
  for (auto _ : state) one_step();

  const double iters = double(state.iterations());
  state.counters["tok_s"] = benchmark::Counter(kSeq * iters, benchmark::Counter::kIsRate);
  state.counters["GFLOP/s"] =
      benchmark::Counter(3.0 * forward_flops(arch) * iters / 1e9, benchmark::Counter::kIsRate);
  state.counters["weight_bits"] = 32;  // f32 master weights and sgemm
  const train::StageTimes& t = model.stage_times();
  const double total = t.attention + t.moe + t.mlp + t.readout + t.other;
  if (total > 0) {
    state.counters["attention_frac"] = t.attention / total;
    state.counters["moe_frac"] = t.moe / total;
    state.counters["mlp_frac"] = t.mlp / total;
    state.counters["readout_frac"] = t.readout / total;
  }
  state.SetLabel(train::train_kernels().name);
}
BENCHMARK(BM_train_step_reference)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_train_step_reference_amx)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace amxqa::bench

#else  // no trainer library

namespace {
void BM_train_step_reference(benchmark::State& state) {
  state.SkipWithError("trainer library not linked (configure with AMXQA_BUILD_TRAINER=ON)");
}
BENCHMARK(BM_train_step_reference);
void BM_train_step_reference_amx(benchmark::State& state) {
  state.SkipWithError("trainer library not linked (configure with AMXQA_BUILD_TRAINER=ON)");
}
BENCHMARK(BM_train_step_reference_amx);
}  // namespace

#endif
