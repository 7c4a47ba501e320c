// bench_kernels.cpp — throughput of each ISA kernel table (main() lives in
// bench_main.cpp). Counters: GFLOP/s for sgemm and matmul (2·m·n·k flops),
// GB/s of weight bytes streamed for matvec. An ISA the CPU lacks reports
// "architecture unsupported" instead of running.
//
//   BM_sgemm_<isa>/m/n/k/ta/tb      the trainer's shapes, all four transposes
//   BM_matmul_<dtype>_<isa>         prefill: 64 tokens × a 640×256 weight
//   BM_matmul_<i8|i7>vnni4_normal_<isa>  the same with normal activations
//                                   (uniform ones above), whose int8 values
//                                   are smaller, as a model's are: what
//                                   AVX2's 7-bit kernel's int16 spans see
//   BM_matmul_<i8|i7>vnni4_model_<isa>/n/k  64 tokens × an n×k weight, the
//                                   model's shapes (QKV, FFN up, FFN down),
//                                   with activations like the 7-bit model's
//                                   prefill (model_floats)
//   BM_matmul_qkv_<i8|i7>vnni4_<isa>/shared:S  attention's q, k and v of the
//                                   default model (128, 64 and 64 outputs of
//                                   256 inputs, 64 tokens of model_floats):
//                                   three matmuls (S 0) or one matmul_shared,
//                                   which quantises the activations once (S 1)
//   BM_matvec_<dtype>_<isa>         decode: a 2048×1024 weight (beyond L2)
//   BM_dot_rows_<isa>               the start pointer: 512 f32 rows of 256
//   BM_attend_gemm_<isa>/tb         prefill attention of one head: 64 rows
//                                   against 256 keys, scores (tb 1), output (tb 0)
//   BM_attend_gemm_zmm_avx512/tb    the same with the zmm kernel, on any AVX-512 CPU
//   BM_softmax_<isa>                one 256-key attention row (canonical exp)
//   BM_matmul_bf16_amx,             the AMX table's tile paths on the same
//   BM_matmul_bf16vnni2_amx         prefill shape: plain bf16 (the default
//                                   model's layout) as Yᵀ = W·Xᵀ, and vnni2;
//                                   "architecture unsupported" unless
//                                   amx_status().usable
//   BM_fma_peak_avx512              12 independent zmm FMA chains: the core's
//                                   f32 peak, the yardstick for sgemm
#include <benchmark/benchmark.h>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "amxqa.h"
#include "cpu/amx_detect.h"
#if defined(__x86_64__)
#include "kernels/attend_gemm_avx512.h"
#endif
#include "kernels/amx/amx_thread.h"
#include "kernels/kernels.h"
#include "kernels/training/sgemm_bf16.h"

using namespace amxqa;

namespace {

struct Isa {
  const char* name;
  const Kernels* table;
  bool supported;
};

// Every table of this build's architecture gets its rows (on aarch64: neon
// and neon_dotprod, each row "architecture unsupported" where the CPU lacks it).
std::vector<Isa> isas() {
  return {
      {"scalar", &kernels_scalar(), true},
#if defined(__x86_64__)
      {"avx2", kernels_avx2(), __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")},
      {"avx512", kernels_avx512(),
       __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
           __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq")},
#elif defined(__aarch64__)
      {"neon", kernels_neon(), kernels_for_isa(AMXQA_ISA_NEON) != nullptr},
      {"neon_dotprod", kernels_neon_dotprod(), kernels_for_isa(AMXQA_ISA_NEON_DOTPROD) != nullptr},
#endif
  };
}

std::vector<float> random_floats(size_t n, uint32_t seed) {
  std::mt19937 g(seed);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (float& f : v) f = u(g);
  return v;
}

// Weight storage for one dtype/layout; contents are random, the layout only
// changes where each byte lives, which is all a throughput test needs.
struct BenchWeights {
  std::vector<float> f32;
  std::vector<uint16_t> bf16;
  std::vector<int8_t> i8;
  std::vector<float> scales;
  WeightView view;
  size_t bytes = 0;
  BenchWeights(DType dt, Layout lay, uint32_t rows, uint32_t cols, uint8_t bits = 8) {
    const size_t n = size_t(rows) * cols;
    f32 = random_floats(n, 7);
    view.dtype = dt;
    view.layout = lay;
    view.rows = rows;
    view.cols = cols;
    if (dt == DType::f32) {
      view.data = f32.data();
      bytes = n * 4;
    } else if (dt == DType::bf16) {
      bf16.resize(n);
      for (size_t i = 0; i < n; ++i) bf16[i] = f32_to_bf16(f32[i]);
      view.data = bf16.data();
      bytes = n * 2;
    } else {
      i8.resize(n);
      const float qmax = bits == 7 ? 63.0f : 127.0f;  // 7: WeightView::bits
      for (size_t i = 0; i < n; ++i) i8[i] = static_cast<int8_t>(f32[i] * qmax);
      scales.assign(rows, 1.0f / qmax);
      view.bits = bits;
      view.data = i8.data();
      view.scales = scales.data();
      bytes = n;
    }
  }
};

void bm_sgemm(benchmark::State& state, const Isa isa) {
  if (!isa.supported || !isa.table) return state.SkipWithError("architecture unsupported");
  const size_t m = state.range(0), n = state.range(1), k = state.range(2);
  const bool ta = state.range(3) != 0, tb = state.range(4) != 0;
  const std::vector<float> A = random_floats(m * k, 1), B = random_floats(k * n, 2);
  std::vector<float> C(m * n);
  for (auto _ : state) {
    isa.table->sgemm(ta, tb, m, n, k, 1.0f, A.data(), ta ? m : k, B.data(), tb ? k : n, 0.0f,
                     C.data(), n);
    benchmark::DoNotOptimize(C.data());
  }
  state.counters["GFLOP/s"] = benchmark::Counter(2.0 * m * n * k * state.iterations() / 1e9,
                                                 benchmark::Counter::kIsRate);
}

// The trainer's bf16 compute mode (same shapes and counter as BM_sgemm_*).
void bm_sgemm_bf16_avx512(benchmark::State& state) {
#if defined(__x86_64__)
  if (!kernels_avx512() || !__builtin_cpu_supports("avx512bf16"))
#endif
    return state.SkipWithError("architecture unsupported");
  const size_t m = state.range(0), n = state.range(1), k = state.range(2);
  const bool ta = state.range(3) != 0, tb = state.range(4) != 0;
  const std::vector<float> A = random_floats(m * k, 1), B = random_floats(k * n, 2);
  std::vector<float> C(m * n);
  for (auto _ : state) {
    sgemm_bf16_avx512(ta, tb, m, n, k, 1.0f, A.data(), ta ? m : k, B.data(), tb ? k : n, 0.0f,
                      C.data(), n);
    benchmark::DoNotOptimize(C.data());
  }
  state.counters["GFLOP/s"] = benchmark::Counter(2.0 * m * n * k * state.iterations() / 1e9,
                                                 benchmark::Counter::kIsRate);
}

// Activations from N(0, 1): amax about 3 sigma, so most |q| are far below
// 127 (the 7-bit qa-v2.2 model's prefill lets 87% or more of the 7-bit
// kernel's chunks of 16 columns sum 4 groups in int16; uniform activations
// let few).
std::vector<float> normal_floats(size_t n, uint32_t seed) {
  std::mt19937 g(seed);
  std::normal_distribution<float> d(0.0f, 1.0f);
  std::vector<float> v(n);
  for (float& f : v) f = d(g);
  return v;
}

// Activations like the 7-bit qa-v2.2 model's prefill, m rows of k. k 640
// (FFN down, after ReLU²: 99% zeros, all >= 0): max(z − 2.33, 0)². Other k
// (the RMS-normed inputs of QKV and FFN up): N(0, 1) with two outlier
// channels that set each row's amax, +s at column 45 k / 256 and −0.8 s at
// 201 k / 256, s log-uniform in [4.5, 24] and shared by 8 consecutive rows
// (the model's rows have amax / sd about 7, outliers in the same channels,
// similar scales in neighbouring tokens). Histogram of the widest exact
// int16 span of AVX2's 7-bit kernel (6-row blocks, chunks of 16 columns;
// 1/2/4/8/16 groups, the last two beyond what the kernel takes): these 64
// rows at k 256 0/0.01/0.18/0.53/0.27, k 640 0/0/0/0.01/0.99; the model's
// prefill over 300 dev-v1.1-open questions (throw-away instrumented build):
// FFN up (k 256) 0.0004/0.03/0.20/0.56/0.21, FFN down (k 640)
// 0/0.0004/0.02/0.06/0.92.
std::vector<float> model_floats(size_t m, size_t k, uint32_t seed) {
  std::mt19937 g(seed);
  std::normal_distribution<float> z(0.0f, 1.0f);
  std::uniform_real_distribution<float> u(std::log(4.5f), std::log(24.0f));
  std::vector<float> v(m * k);
  float s = 0.0f;
  for (size_t i = 0; i < m; ++i) {
    if (i % 8 == 0) s = std::exp(u(g));
    for (size_t c = 0; c < k; ++c) {
      const float r = z(g);
      v[i * k + c] = k == 640 ? (r > 2.33f ? (r - 2.33f) * (r - 2.33f) : 0.0f) : r;
    }
    if (k != 640) {
      v[i * k + 45 * k / 256] = s;
      v[i * k + 201 * k / 256] = -0.8f * s;
    }
  }
  return v;
}

enum class Acts { uniform, normal, model };

// Prefill: 64 rows of activations against a rows × cols weight.
void run_matmul(benchmark::State& state, const Isa& isa, DType dt, Layout lay, uint8_t bits,
                Acts acts, uint32_t rows, uint32_t cols) {
  if (!isa.supported || !isa.table) return state.SkipWithError("architecture unsupported");
  const size_t m = 64;
  const BenchWeights w(dt, lay, rows, cols, bits);
  const std::vector<float> X = acts == Acts::normal  ? normal_floats(m * cols, 3)
                               : acts == Acts::model ? model_floats(m, cols, 3)
                                                     : random_floats(m * cols, 3);
  std::vector<float> Y(m * rows);
  for (auto _ : state) {
    isa.table->matmul(w.view, X.data(), cols, m, Y.data(), rows);
    benchmark::DoNotOptimize(Y.data());
  }
  state.counters["GFLOP/s"] = benchmark::Counter(2.0 * m * rows * cols * state.iterations() / 1e9,
                                                 benchmark::Counter::kIsRate);
  amx_release_thread_state();  // tile kernels keep their configuration per thread
}

void bm_matmul(benchmark::State& state, const Isa isa, DType dt, Layout lay, uint8_t bits,
               bool normal) {
  run_matmul(state, isa, dt, lay, bits, normal ? Acts::normal : Acts::uniform, 640, 256);
}

// The model's shapes, n × k from the arguments.
void bm_matmul_model(benchmark::State& state, const Isa isa, DType dt, Layout lay, uint8_t bits) {
  run_matmul(state, isa, dt, lay, bits, Acts::model, static_cast<uint32_t>(state.range(0)),
             static_cast<uint32_t>(state.range(1)));
}

// q, k and v from one input: three matmuls or one matmul_shared.
void bm_matmul_qkv(benchmark::State& state, const Isa isa, DType dt, Layout lay, uint8_t bits) {
  if (!isa.supported || !isa.table || !isa.table->matmul_shared)
    return state.SkipWithError("architecture unsupported");
  const size_t m = 64;
  const uint32_t cols = 256, rows[3] = {128, 64, 64};
  const BenchWeights wq(dt, lay, rows[0], cols, bits), wk(dt, lay, rows[1], cols, bits),
      wv(dt, lay, rows[2], cols, bits);
  const WeightView ws[3] = {wq.view, wk.view, wv.view};
  const std::vector<float> X = model_floats(m, cols, 3);
  std::vector<float> Y[3];
  float* Ys[3];
  size_t ldys[3];
  for (size_t j = 0; j < 3; ++j) {
    Y[j].resize(m * rows[j]);
    Ys[j] = Y[j].data();
    ldys[j] = rows[j];
  }
  const bool shared = state.range(0) != 0;
  for (auto _ : state) {
    if (shared) {
      isa.table->matmul_shared(ws, 3, X.data(), cols, m, Ys, ldys);
    } else {
      for (size_t j = 0; j < 3; ++j) isa.table->matmul(ws[j], X.data(), cols, m, Ys[j], ldys[j]);
    }
    benchmark::DoNotOptimize(Ys[0]);
  }
  state.counters["GFLOP/s"] = benchmark::Counter(
      2.0 * m * (rows[0] + rows[1] + rows[2]) * cols * state.iterations() / 1e9,
      benchmark::Counter::kIsRate);
}

void bm_matvec(benchmark::State& state, const Isa isa, DType dt, Layout lay, uint8_t bits) {
  if (!isa.supported || !isa.table) return state.SkipWithError("architecture unsupported");
  const uint32_t rows = 2048, cols = 1024;
  const BenchWeights w(dt, lay, rows, cols, bits);
  const std::vector<float> x = random_floats(cols, 4);
  std::vector<float> y(rows);
  for (auto _ : state) {
    isa.table->matvec(w.view, x.data(), y.data());
    benchmark::DoNotOptimize(y.data());
  }
  state.counters["GB/s"] =
      benchmark::Counter(double(w.bytes) * state.iterations() / 1e9, benchmark::Counter::kIsRate);
}

// The start pointer's scores: 512 passage positions × d 256 f32 rows
// (out += rows · x) in the canonical order. GFLOP/s of 2·n·d.
void bm_dot_rows(benchmark::State& state, const Isa isa) {
  if (!isa.supported || !isa.table) return state.SkipWithError("architecture unsupported");
  const size_t n = 512, d = 256;
  const std::vector<float> rows = random_floats(n * d, 5), x = random_floats(d, 6);
  std::vector<float> out(n, 0.0f);
  for (auto _ : state) {
    isa.table->dot_rows(rows.data(), d, n, x.data(), d, out.data());
    benchmark::DoNotOptimize(out.data());
  }
  state.counters["GFLOP/s"] =
      benchmark::Counter(2.0 * n * d * state.iterations() / 1e9, benchmark::Counter::kIsRate);
}

// Prefill attention's products in the canonical order, the default model's
// shape: a 64-row block of one head (hd 32) against 256 keys, scores
// (tb = 1: scale · Q Kᵀ, k = 32) and output (tb = 0: P V, k = 256).
// GFLOP/s of 2·m·n·k.
using AttendGemm = void (*)(bool, size_t, size_t, size_t, float, const float*, size_t,
                           const float*, size_t, float*, size_t, size_t);

void run_attend_gemm(benchmark::State& state, AttendGemm gemm) {
  const bool tb = state.range(0) != 0;
  const size_t m = 64, keys = 256, hd = 32;
  const size_t n = tb ? keys : hd, k = tb ? hd : keys;
  const std::vector<float> A = random_floats(m * k, 8), B = random_floats(keys * hd, 9);
  std::vector<float> C(m * n);
  for (auto _ : state) {
    gemm(tb, m, n, k, 0.17f, A.data(), k, B.data(), hd, C.data(), n, kNoCausalLimit);
    benchmark::DoNotOptimize(C.data());
  }
  state.counters["GFLOP/s"] =
      benchmark::Counter(2.0 * m * n * k * state.iterations() / 1e9, benchmark::Counter::kIsRate);
}

void bm_attend_gemm(benchmark::State& state, const Isa isa) {
  if (!isa.supported || !isa.table) return state.SkipWithError("architecture unsupported");
  run_attend_gemm(state, isa.table->attend_gemm);
}

#if defined(__x86_64__)
// The zmm kernel whatever the table chose (it runs where zmm FMAs outrun ymm).
void BM_attend_gemm_zmm_avx512(benchmark::State& state) {
  if (!kernels_for_isa(AMXQA_ISA_AVX512)) return state.SkipWithError("architecture unsupported");
  run_attend_gemm(state, attend_gemm_avx512);
}
BENCHMARK(BM_attend_gemm_zmm_avx512)->ArgName("tb")->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);
#endif

// One swa attention row: softmax over a 256-key window (canonical exp).
void bm_softmax(benchmark::State& state, const Isa isa) {
  if (!isa.supported || !isa.table) return state.SkipWithError("architecture unsupported");
  const size_t n = 256;
  const std::vector<float> src = random_floats(n, 7);
  std::vector<float> x(n);
  for (auto _ : state) {
    std::copy(src.begin(), src.end(), x.begin());
    benchmark::DoNotOptimize(isa.table->softmax(x.data(), n));
  }
  state.counters["Gexp/s"] =
      benchmark::Counter(double(n) * state.iterations() / 1e9, benchmark::Counter::kIsRate);
}

#if defined(__x86_64__)
// 12 independent FMA chains cover the latency × throughput of two 512-bit
// FMA pipes (Zen 5) or one (Zen 4 double-pumps 512-bit ops).
__attribute__((target("avx512f"), noinline)) float fma_chains(int64_t iters) {
  __m512 acc[12];
  const __m512 mul = _mm512_set1_ps(0.999999f), add = _mm512_set1_ps(1e-6f);
  for (int i = 0; i < 12; ++i) acc[i] = _mm512_set1_ps(float(i));
  for (int64_t t = 0; t < iters; ++t) {
#pragma GCC unroll 12
    for (int i = 0; i < 12; ++i) acc[i] = _mm512_fmadd_ps(acc[i], mul, add);
  }
  __m512 s = acc[0];
  for (int i = 1; i < 12; ++i) s = _mm512_add_ps(s, acc[i]);
  alignas(64) float lanes[16];
  _mm512_store_ps(lanes, s);
  float sum = 0.0f;
  for (float f : lanes) sum += f;
  return sum;
}

void BM_fma_peak_avx512(benchmark::State& state) {
  if (!__builtin_cpu_supports("avx512f")) return state.SkipWithError("architecture unsupported");
  const int64_t iters = 100000;
  for (auto _ : state) {
    int64_t n = iters;
    benchmark::DoNotOptimize(n);  // fma_chains is pure: keep it inside the loop
    benchmark::DoNotOptimize(fma_chains(n));
  }
  state.counters["GFLOP/s"] = benchmark::Counter(iters * 12.0 * 32 * state.iterations() / 1e9,
                                                 benchmark::Counter::kIsRate);
}
BENCHMARK(BM_fma_peak_avx512);
#endif

struct DtypeCase {
  const char* name;
  DType dt;
  Layout lay;
  uint8_t bits = 8;  // i8: 7 = 7-bit weights (AVX2's vpmaddubsw kernel)
};
const DtypeCase kDtypes[] = {{"f32", DType::f32, Layout::plain},
                             {"bf16", DType::bf16, Layout::plain},
                             {"bf16vnni2", DType::bf16, Layout::vnni2},
                             {"i8", DType::i8, Layout::plain},
                             {"i8vnni4", DType::i8, Layout::vnni4},
                             {"i7vnni4", DType::i8, Layout::vnni4, 7}};

// Registered from a static initialiser so bench_main.cpp needs no knowledge
// of this file.
[[maybe_unused]] const bool kRegistered = [] {
  // Trainer shapes: forward NT, input gradient NN, weight gradient TN (+TT).
  auto trainer_shapes = [](benchmark::internal::Benchmark* b) {
    b->ArgNames({"m", "n", "k", "ta", "tb"});
    for (const auto& s : {std::vector<int64_t>{1024, 256, 256}, std::vector<int64_t>{1024, 640, 256},
                          std::vector<int64_t>{256, 256, 1024}})
      for (int64_t ta : {0, 1})
        for (int64_t tb : {0, 1}) b->Args({s[0], s[1], s[2], ta, tb});
    b->Unit(benchmark::kMicrosecond);
  };
  trainer_shapes(benchmark::RegisterBenchmark("BM_sgemm_bf16_avx512", bm_sgemm_bf16_avx512));
  for (const Isa& isa : isas()) {
    trainer_shapes(benchmark::RegisterBenchmark((std::string("BM_sgemm_") + isa.name).c_str(),
                                                bm_sgemm, isa));
    benchmark::RegisterBenchmark((std::string("BM_dot_rows_") + isa.name).c_str(), bm_dot_rows,
                                 isa)
        ->Unit(benchmark::kMicrosecond);
    benchmark::RegisterBenchmark((std::string("BM_attend_gemm_") + isa.name).c_str(),
                                 bm_attend_gemm, isa)
        ->ArgName("tb")
        ->Arg(0)
        ->Arg(1)
        ->Unit(benchmark::kMicrosecond);
    benchmark::RegisterBenchmark((std::string("BM_softmax_") + isa.name).c_str(), bm_softmax, isa)
        ->Unit(benchmark::kNanosecond);
    for (const DtypeCase& d : kDtypes) {
      benchmark::RegisterBenchmark(
          (std::string("BM_matmul_") + d.name + "_" + isa.name).c_str(), bm_matmul, isa, d.dt,
          d.lay, d.bits, false)
          ->Unit(benchmark::kMicrosecond);
      if (d.dt == DType::i8 && d.lay == Layout::vnni4) {
        benchmark::RegisterBenchmark(
            (std::string("BM_matmul_") + d.name + "_normal_" + isa.name).c_str(), bm_matmul, isa,
            d.dt, d.lay, d.bits, true)
            ->Unit(benchmark::kMicrosecond);
        benchmark::RegisterBenchmark(
            (std::string("BM_matmul_") + d.name + "_model_" + isa.name).c_str(), bm_matmul_model,
            isa, d.dt, d.lay, d.bits)
            ->ArgNames({"n", "k"})
            ->Args({256, 256})
            ->Args({640, 256})
            ->Args({256, 640})
            ->Unit(benchmark::kMicrosecond);
        benchmark::RegisterBenchmark(
            (std::string("BM_matmul_qkv_") + d.name + "_" + isa.name).c_str(), bm_matmul_qkv, isa,
            d.dt, d.lay, d.bits)
            ->ArgName("shared")
            ->Arg(0)
            ->Arg(1)
            ->Unit(benchmark::kMicrosecond);
      }
      benchmark::RegisterBenchmark(
          (std::string("BM_matvec_") + d.name + "_" + isa.name).c_str(), bm_matvec, isa, d.dt,
          d.lay, d.bits)
          ->Unit(benchmark::kMicrosecond);
    }
  }
  // The AMX table only tiles bf16 (and i8 vnni4, in bench_amx.cpp) prefill;
  // its other entries forward to AVX-512, which the rows above measure.
  const Isa amx{"amx", kernels_amx(), kernels_amx() && amx_status().usable};
  for (const DtypeCase& d : kDtypes)
    if (d.dt == DType::bf16)
      benchmark::RegisterBenchmark((std::string("BM_matmul_") + d.name + "_amx").c_str(),
                                   bm_matmul, amx, d.dt, d.lay, d.bits, false)
          ->Unit(benchmark::kMicrosecond);
  return true;
}();

}  // namespace
