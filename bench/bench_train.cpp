// bench_train.cpp — training throughput: one optimizer step (forward,
// backward, AdamW) per iteration.
//
//   BM_train_step_reference   the paper's reference shape on one thread:
//                             TrainModel::forward_backward + adamw_step on one
//                             1,024-token document, sampled softmax (pool 1,024)
//   BM_train_step_qa_sft/trainer_threads:N    the shipped model's shape (its recipe,
//                             trainer/recipes/qa-v2.2.recipe) in its QA SFT step:
//                             sft_qa.batch_tokens of ~200-token prompts with
//                             3-token answers, extractive loss (start pointer),
//                             through StepWorkers on N threads, on N cores
//                             (support/cpu_pinning.h: counter "cores" says
//                             how many the row had)
//   BM_train_step_reference_amx / _bf16   the same step in bf16 compute on
//                             AMX tiles / on vdpbf16ps (AVX512-BF16, no AMX)
//   BM_train_step_qa_sft_bf16, BM_train_step_pretrain_bf16   the rows below
//                             in bf16 compute (tiles on AMX, else vdpbf16ps)
//   BM_train_products_{bf16_amx,bf16_avx512,f32}/m/n/k   one weight's three
//                             products of a step (see ProductShape)
//   BM_train_step_pretrain/trainer_threads:N  the paper's pretraining step
//                             (trainer/recipes/paper-pretrain.recipe, its MoE
//                             arm): pretrain.batch_tokens of seq_len documents,
//                             the recipe's loss and f32 compute, on N threads
// Counters: tok/s; GFLOP/s (3 × the forward FLOPs: forward, input and weight
// gradients), over wall time for N threads; roofline_frac = GFLOP/s per CPU
// second of the process over the f32 FMA peak of the ISA the trainer runs
// (bf16 rows: over the tile peak on tiles, the vdpbf16ps peak on vdpbf16ps)
// (AMXQA_MAX_ISA=avx2 measures its AVX2 path on an AVX-512 machine);
// tok_per_cpu_s likewise; seconds per stage as fractions of the step.
// The one benchmark that needs the trainer: amxqa-bench links the trainer
// library (amxqa_trainer_lib, model/train_model.h) explicitly when it is built
// (AMXQA_HAVE_TRAINER); without it the benchmark reports why it did not run.
#include <benchmark/benchmark.h>

#ifdef AMXQA_HAVE_TRAINER
#include <algorithm>
#include <ctime>
#include <memory>
#include <string>
#include <vector>

#include "amxqa_paths.h"
#include "kernels/training/sgemm_bf16.h"
#include "format/random_model.h"
#include "model/step_workers.h"
#include "model/train_model.h"
#include "recipe/recipe.h"
#include "recipe/run_config.h"
#include "report/rooflines.h"
#include "support/cpu_pinning.h"

namespace amxqa::bench {
namespace {

constexpr size_t kSeq = 1024;
constexpr uint32_t kPool = 1024;

// Forward FLOPs of the layers over one n-token document (see
// support/reference_model.h for the same count on a model file); the readout
// is added by the caller (it depends on the loss).
double layer_flops(const ArchConfig& a, double n) {
  const double d = a.d_model, H = a.n_heads, G = a.n_kv_heads, hd = a.head_dim, dk = a.lin_state;
  const double W = a.window;
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
  return per_token * n + attention;
}

// Readout FLOPs of `rows` predicted positions over `cols` candidate ids.
double readout_flops(const ArchConfig& a, double rows, double cols) { return 2.0 * a.d_model * rows * cols; }

// Pseudo-random token ids (bytes and merges, never specials).
struct Ids {
  uint64_t s;
  uint32_t vocab;
  uint32_t next() {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    return kByteBase + uint32_t((s >> 33) % (vocab - kByteBase));
  }
};

// Counters every training row reports.
// The process's CPU seconds (every thread's), as the peak probes count theirs.
double process_cpu_seconds() {
  timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + 1e-9 * double(ts.tv_nsec);
}

// `cpu_seconds`: the process CPU time of the timed steps. roofline_frac is
// GFLOP/s per CPU second over the peak: on a busy machine it is not lowered
// by time other processes take, and it leaves the thread scaling to tok_s.
void report(benchmark::State& state, const ArchConfig& arch, double tokens_per_step,
            double flops_per_step, unsigned threads, const train::StageTimes& t, double cpu_seconds) {
  const double iters = double(state.iterations());
  // bf16 compute: the peak of the unit its products run on (tiles or vdpbf16ps).
  const double peak =
      rooflines().compute_peak(train::train_isa(), train::bf16_compute_on() ? DType::bf16 : DType::f32);
  if (peak > 0 && cpu_seconds > 0)
    state.counters["roofline_frac"] = 3.0 * flops_per_step * iters / cpu_seconds / 1e9 / peak;
  if (cpu_seconds > 0) state.counters["tok_per_cpu_s"] = tokens_per_step * iters / cpu_seconds;
  state.counters["tok_s"] = benchmark::Counter(tokens_per_step * iters, benchmark::Counter::kIsRate);
  state.counters["GFLOP/s"] =
      benchmark::Counter(3.0 * flops_per_step * iters / 1e9, benchmark::Counter::kIsRate);
  state.counters["weight_bits"] = 32;  // f32 master weights and sgemm
  state.counters["threads"] = threads;
  const double total = t.attention + t.moe + t.mlp + t.readout + t.other;
  if (total > 0) {
    state.counters["attention_frac"] = t.attention / total;
    if (arch.moe_experts) state.counters["moe_frac"] = t.moe / total;
    state.counters["mlp_frac"] = t.mlp / total;
    state.counters["readout_frac"] = t.readout / total;
  }
  state.SetLabel(train::train_kernels().name);
}

// A warm-up step (scratch buffers, first-touch pages), reset_times(), then
// the timed steps: grads(step) computes a step's gradients, adamw(cfg, step,
// lr) applies them. Returns the timed steps' process CPU seconds.
template <class Grads, class AdamW, class Reset>
double timed_steps(benchmark::State& state, Grads&& grads, AdamW&& adamw, Reset&& reset_times) {
  train::AdamWConfig cfg;
  uint64_t step = 1;
  auto one_step = [&] {
    grads(step);
    adamw(cfg, step, train::lr_at(cfg, step, 1000));
    ++step;
  };
  one_step();
  reset_times();
  const double cpu0 = process_cpu_seconds();
  for (auto _ : state) one_step();
  return process_cpu_seconds() - cpu0;
}

void train_step_reference(benchmark::State& state);

void BM_train_step_reference(benchmark::State& state) {
  train_step_reference(state);
}

// The trainer's bf16 compute mode (operands rounded to bf16, f32
// accumulation and master weights) for the scope of one row: on tiles
// (tiles = true, AMX only) or on vdpbf16ps (false: AVX512-BF16 without AMX;
// an AMX CPU's bf16 runs on tiles). ok() is false, with the row skipped,
// where the CPU has no such unit.
struct Bf16Row {
  bool on;
  Bf16Row(benchmark::State& state, bool tiles)
      : on(train::set_bf16_compute(true) && train::bf16_compute_on_tiles() == tiles) {
    if (!on) state.SkipWithError("architecture unsupported");
  }
  ~Bf16Row() { train::set_bf16_compute(false); }
  bool ok() const { return on; }
  static void label(benchmark::State& state) {
    state.counters["weight_bits"] = 16;  // bf16 products
    state.SetLabel(train::bf16_compute_on_tiles() ? "amx_bf16 tiles" : "avx512_bf16 vdpbf16ps");
  }
};

// The same step on AMX tiles.
void BM_train_step_reference_amx(benchmark::State& state) {
  const Bf16Row bf16(state, true);
  if (!bf16.ok()) return;
  train_step_reference(state);
  Bf16Row::label(state);
}

// The same step on vdpbf16ps (Zen 4 and other AVX512-BF16 CPUs without AMX).
void BM_train_step_reference_bf16(benchmark::State& state) {
  const Bf16Row bf16(state, false);
  if (!bf16.ok()) return;
  train_step_reference(state);
  Bf16Row::label(state);
}

void train_step_reference(benchmark::State& state) {
  const ArchConfig arch = make_random_model("reference", 1).arch;
  train::TrainModel model(arch, 1);
  Ids ids{9, arch.vocab_size};
  std::vector<uint32_t> tokens{kBos};
  while (tokens.size() < kSeq) tokens.push_back(ids.next());
  const std::vector<uint8_t> mask(kSeq, 1);
  train::LossOptions opt;
  opt.kind = train::LossKind::sampled;
  opt.sampled_pool = kPool;
  const double cpu = timed_steps(
      state,
      [&](uint64_t step) {
        model.zero_grad();
        opt.seed = step;
        const train::StepStats st =
            model.forward_backward(tokens.data(), tokens.size(), mask.data(), opt);
        benchmark::DoNotOptimize(st.loss_sum);
      },
      [&](const train::AdamWConfig& c, uint64_t step, float lr) { train::adamw_step(model.params(), c, step, lr); },
      [&] { model.reset_stage_times(); });
  const double flops = layer_flops(arch, kSeq) +
                       readout_flops(arch, kSeq, std::min<double>(arch.vocab_size, kPool + kSeq));
  report(state, arch, kSeq, flops, 1, model.stage_times(), cpu);
}
BENCHMARK(BM_train_step_reference)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_train_step_reference_amx)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_train_step_reference_bf16)->Unit(benchmark::kMillisecond);

// A committed recipe (trainer/recipes/NAME.recipe), or null with the reason
// when the checkout's recipes are not beside this binary.
std::unique_ptr<train::RunConfig> load_recipe(const char* name, std::string* why) {
  const std::string root = paths::checkout_root();
  const std::string path =
      (root.empty() ? std::string(".") : root) + "/trainer/recipes/" + name + ".recipe";
  try {
    return std::make_unique<train::RunConfig>(train::read_run_config(train::Recipe::load(path)));
  } catch (const std::exception& e) {
    *why = std::string("recipe not found: ") + e.what();
    return nullptr;
  }
}

// One training document (squad_examples.h's Example, which the bench does not link).
struct Doc {
  std::vector<uint32_t> tokens;
  std::vector<uint8_t> mask;
  uint32_t passage_begin = 0, passage_end = 0, answer_begin = 0;
};

struct StepShape {
  std::vector<Doc> docs;
  std::vector<train::StepDoc> step;
  double tokens = 0, flops = 0;
};

// One SFT step of QA prompts laid out as squad_examples.cpp builds them: BOS,
// a 12-token question, the separator, a ~180-token passage, ANS, then a
// 3-token answer copied from the passage and EOT; the mask marks ANS and the
// answer tokens (the positions that predict the targets).
StepShape qa_step(const train::RunConfig& rc) {
  const ArchConfig& a = rc.arch;
  StepShape s;
  Ids ids{11, a.vocab_size};
  const uint64_t predicted_per_doc = 4;
  uint64_t predicted = 0;
  while (s.tokens < double(rc.sft_qa.batch_tokens)) {
    Doc ex;
    ex.tokens.push_back(kBos);
    for (int i = 0; i < 12; ++i) ex.tokens.push_back(ids.next());
    ex.tokens.push_back(kByteBase + '\n');
    ex.passage_begin = uint32_t(ex.tokens.size());
    const size_t passage = 170 + ids.next() % 21;
    for (size_t i = 0; i < passage; ++i) ex.tokens.push_back(ids.next());
    ex.passage_end = uint32_t(ex.tokens.size());
    ex.tokens.push_back(kAns);
    ex.answer_begin = ex.passage_begin + uint32_t(ids.next() % (passage - 3));
    ex.mask.assign(ex.tokens.size() + 4, 0);
    for (uint64_t i = 0; i < predicted_per_doc; ++i) ex.mask[ex.tokens.size() - 1 + i] = 1;
    for (uint32_t i = 0; i < 3; ++i) ex.tokens.push_back(ex.tokens[ex.answer_begin + i]);
    ex.tokens.push_back(kEot);
    s.tokens += double(ex.tokens.size());
    // Candidates: the passage's ids + EOT + ABSTAIN (at most the passage length + 2).
    s.flops += layer_flops(a, double(ex.tokens.size())) +
               readout_flops(a, double(predicted_per_doc), double(passage + 2));
    predicted += predicted_per_doc;
    s.docs.push_back(std::move(ex));
  }
  for (const Doc& ex : s.docs) {
    train::LossOptions o = rc.sft_qa.loss;
    o.kind = train::LossKind::extractive;
    o.passage_begin = ex.passage_begin;
    o.passage_end = ex.passage_end;
    o.answer_begin = ex.answer_begin;
    o.ce_scale = 1.f / float(predicted);
    s.step.push_back(train::StepDoc{ex.tokens.data(), ex.tokens.size(), ex.mask.data(), o});
  }
  return s;
}

// One pretraining step: pretrain.batch_tokens of seq_len-token documents,
// every position predicting the next, the recipe's pretraining loss.
StepShape pretrain_step(const train::RunConfig& rc) {
  const ArchConfig& a = rc.arch;
  StepShape s;
  Ids ids{13, a.vocab_size};
  const train::LossOptions& loss = rc.pretrain.loss;
  const double cols = loss.kind == train::LossKind::full
                          ? double(a.vocab_size)
                          : std::min<double>(a.vocab_size, loss.sampled_pool + rc.seq_len);
  while (s.tokens < double(rc.pretrain.batch_tokens)) {
    Doc ex;
    ex.tokens.push_back(kBos);
    while (ex.tokens.size() < rc.seq_len) ex.tokens.push_back(ids.next());
    ex.mask.assign(ex.tokens.size(), 1);
    s.tokens += double(ex.tokens.size());
    s.flops += layer_flops(a, double(ex.tokens.size())) + readout_flops(a, double(ex.tokens.size() - 1), cols);
    s.docs.push_back(std::move(ex));
  }
  for (const Doc& ex : s.docs) {
    train::LossOptions o = loss;
    o.ce_scale = 1.f / float(s.tokens - double(s.docs.size()));
    o.aux_scale = 1.f / float(s.docs.size());
    s.step.push_back(train::StepDoc{ex.tokens.data(), ex.tokens.size(), ex.mask.data(), o});
  }
  return s;
}

// Steps of `make`'s shape for recipe `name` on state.range(0) threads, AdamW
// included (StepWorkers::adamw_step: on the same threads).
void run_steps(benchmark::State& state, const char* name, StepShape (*make)(const train::RunConfig&)) {
  std::string why;
  const std::unique_ptr<train::RunConfig> rc = load_recipe(name, &why);
  if (!rc) return state.SkipWithError(why.c_str());
  const unsigned threads = unsigned(state.range(0));
  StepShape shape = make(*rc);
  train::TrainModel model(rc->arch, 1);
  const CoreSpread spread(threads);  // before the workers: they inherit its cores
  train::StepWorkers workers(model, threads);
  const double cpu = timed_steps(
      state,
      [&](uint64_t step) {
        for (train::StepDoc& d : shape.step) d.opt.seed = step;
        benchmark::DoNotOptimize(workers.forward_backward(shape.step).data());
      },
      [&](const train::AdamWConfig& c, uint64_t step, float lr) { workers.adamw_step(c, step, lr); },
      [&] { workers.reset_stage_times(); });
  report(state, rc->arch, shape.tokens, shape.flops, threads, workers.stage_times(), cpu);
  state.counters["cores"] = spread.cores();
}

void BM_train_step_qa_sft(benchmark::State& state) { run_steps(state, "qa-v2.2", qa_step); }
void BM_train_step_pretrain(benchmark::State& state) {
  run_steps(state, "paper-pretrain", pretrain_step);
}
// The same steps in bf16 compute: on tiles where the CPU has AMX, else on
// vdpbf16ps (the label says which).
void train_steps_bf16(benchmark::State& state, const char* recipe,
                      StepShape (*make)(const train::RunConfig&)) {
  const Bf16Row bf16(state, train::train_isa() == AMXQA_ISA_AMX);
  if (!bf16.ok()) return;
  run_steps(state, recipe, make);
  Bf16Row::label(state);
}
void BM_train_step_qa_sft_bf16(benchmark::State& state) { train_steps_bf16(state, "qa-v2.2", qa_step); }
void BM_train_step_pretrain_bf16(benchmark::State& state) {
  train_steps_bf16(state, "paper-pretrain", pretrain_step);
}
BENCHMARK(BM_train_step_qa_sft)->ArgName("trainer_threads")->Arg(1)->Arg(2)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_train_step_pretrain)->ArgName("trainer_threads")->Arg(1)->Arg(2)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_train_step_qa_sft_bf16)->ArgName("trainer_threads")->Arg(1)->Arg(2)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_train_step_pretrain_bf16)->ArgName("trainer_threads")->Arg(1)->Arg(2)->UseRealTime()->Unit(benchmark::kMillisecond);

// The bf16 products of one weight matrix in one training step, on the
// reference model's shapes (1,024 tokens; d 256; the MLP's 640): the
// forward Y = X·Wᵀ, the input gradient dX = dY·W and the weight gradient
// dW += dYᵀ·X, each with its activation operands packed, plus the weight's
// two tile layouts (packed once per step). GFLOP/s counts the three products
// (3 · 2mnk); roofline_frac (result_set.cpp, from the name) is over the
// tile peak for _amx, the vdpbf16ps peak for _avx512. BM_train_products_f32
// is the same three products on the trainer's f32 sgemm, for the ratio.
struct ProductShape {
  size_t m, n, k;  // tokens, outputs, inputs
  std::vector<float> X, W, Y, dY, dX, dW;
  explicit ProductShape(benchmark::State& state)
      : m(size_t(state.range(0))), n(size_t(state.range(1))), k(size_t(state.range(2))) {
    Ids ids{17, 1u << 20};
    auto fill = [&](std::vector<float>& v, size_t count) {
      v.resize(count);
      for (float& x : v) x = float(ids.next() % 2001) * 1e-3f - 1.f;
    };
    fill(X, m * k);
    fill(W, n * k);
    fill(dY, m * n);
    Y.resize(m * n);
    dX.resize(m * k);
    dW.assign(n * k, 0.f);
  }
  void report(benchmark::State& state) const {
    state.counters["GFLOP/s"] = benchmark::Counter(3.0 * 2.0 * double(m * n * k) * double(state.iterations()) / 1e9,
                                                   benchmark::Counter::kIsRate);
  }
};

void BM_train_products_bf16_amx(benchmark::State& state) {
  const TileProduct tiles = tile_product_amx();
  if (!tiles || !__builtin_cpu_supports("avx512bf16")) return state.SkipWithError("architecture unsupported");
  ProductShape s(state);
  const size_t m = s.m, n = s.n, k = s.k;
  std::vector<uint32_t> wt(tile_pairs(k) * tile_rows(n)), wn(tile_pairs(n) * tile_rows(k));
  std::vector<uint32_t> a(tile_rows(std::max(m, n)) * tile_pairs(std::max({m, n, k})));
  std::vector<uint32_t> b(tile_pairs(m) * tile_rows(k));
  for (auto _ : state) {
    pack_tile_b(true, k, n, s.W.data(), k, wt.data());   // once per step: Wᵀ
    pack_tile_b(false, n, k, s.W.data(), k, wn.data());  // and W
    pack_tile_a(false, m, k, s.X.data(), k, a.data());
    tiles(m, n, tile_pairs(k), 1.f, a.data(), tile_pairs(k), wt.data(), tile_rows(n), 0.f, s.Y.data(), n);
    pack_tile_a(false, m, n, s.dY.data(), n, a.data());
    tiles(m, k, tile_pairs(n), 1.f, a.data(), tile_pairs(n), wn.data(), tile_rows(k), 0.f, s.dX.data(), k);
    pack_tile_a(true, n, m, s.dY.data(), n, a.data());
    pack_tile_b(false, m, k, s.X.data(), k, b.data());
    tiles(n, k, tile_pairs(m), 1.f, a.data(), tile_pairs(m), b.data(), tile_rows(k), 1.f, s.dW.data(), k);
    benchmark::DoNotOptimize(s.dW.data());
  }
  s.report(state);
}

// The three products through an sgemm (trainer's f32 table, or vdpbf16ps).
template <class Sgemm>
void three_products(benchmark::State& state, ProductShape& s, const Sgemm& sgemm) {
  const size_t m = s.m, n = s.n, k = s.k;
  for (auto _ : state) {
    sgemm(false, true, m, n, k, s.X.data(), k, s.W.data(), k, 0.f, s.Y.data(), n);
    sgemm(false, false, m, k, n, s.dY.data(), n, s.W.data(), k, 0.f, s.dX.data(), k);
    sgemm(true, false, n, k, m, s.dY.data(), n, s.X.data(), k, 1.f, s.dW.data(), k);
    benchmark::DoNotOptimize(s.dW.data());
  }
  s.report(state);
}

void BM_train_products_bf16_avx512(benchmark::State& state) {
  if (!__builtin_cpu_supports("avx512bf16") || train::train_isa() < AMXQA_ISA_AVX512)
    return state.SkipWithError("architecture unsupported");
  ProductShape s(state);
  three_products(state, s, [](bool ta, bool tb, size_t m, size_t n, size_t k, const float* A, size_t lda,
                              const float* B, size_t ldb, float beta, float* C, size_t ldc) {
    sgemm_bf16_avx512(ta, tb, m, n, k, 1.f, A, lda, B, ldb, beta, C, ldc);
  });
}

void BM_train_products_f32(benchmark::State& state) {
  ProductShape s(state);
  const Kernels& t = train::train_kernels();
  three_products(state, s, [&](bool ta, bool tb, size_t m, size_t n, size_t k, const float* A, size_t lda,
                               const float* B, size_t ldb, float beta, float* C, size_t ldc) {
    t.sgemm(ta, tb, m, n, k, 1.f, A, lda, B, ldb, beta, C, ldc);
  });
  state.SetLabel(t.name);
}

void product_shapes(benchmark::internal::Benchmark* b) {
  b->ArgNames({"m", "n", "k"})->Args({1024, 256, 256})->Args({1024, 640, 256})->Unit(benchmark::kMicrosecond);
}
BENCHMARK(BM_train_products_bf16_amx)->Apply(product_shapes);
BENCHMARK(BM_train_products_bf16_avx512)->Apply(product_shapes);
BENCHMARK(BM_train_products_f32)->Apply(product_shapes);

}  // namespace
}  // namespace amxqa::bench

#else  // no trainer library

namespace {
// The rows exist either way, so a report names what is missing.
void skip_without_trainer(benchmark::State& state) {
  state.SkipWithError("trainer library not linked (configure with AMXQA_BUILD_TRAINER=ON)");
}
const bool registered = [] {
  for (const char* name :
       {"BM_train_step_reference", "BM_train_step_reference_amx", "BM_train_step_reference_bf16",
        "BM_train_step_qa_sft", "BM_train_step_pretrain", "BM_train_step_qa_sft_bf16",
        "BM_train_step_pretrain_bf16", "BM_train_products_bf16_amx",
        "BM_train_products_bf16_avx512", "BM_train_products_f32"})
    benchmark::RegisterBenchmark(name, skip_without_trainer);
  return true;
}();
}  // namespace

#endif
