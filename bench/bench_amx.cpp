// bench_amx.cpp — the AMX tile kernels (main() lives in bench_main.cpp).
//
//   BM_amx_bf16_gemm_16x16/m/n/k            real tiles, bf16 vnni2 prefill matmul
//   BM_amx_int8_gemm_16x16/m/n/k            real tiles, i8 vnni4 (activations quantised)
//   BM_amx_tile_peak                        4 x TDPBF16PS per round on register tiles
//   BM_amx_emulated_bf16_gemm_16x16/m/n/k   the same kernel on the tile emulator:
//                                           label "emulated", for correctness not speed
// Counter GFLOP/s = 2·m·n·k per call. Real-tile benchmarks report
// "architecture unsupported" unless amx_status().usable.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <random>
#include <vector>

#include "cpu/amx_detect.h"
#include "kernels/amx/amx_backends.h"
#include "kernels/amx/amx_thread.h"
#include "kernels/kernels.h"

using namespace amxqa;

namespace {

// Random weights of one dtype in the tile layout; only throughput matters.
struct TileWeights {
  std::vector<uint16_t> bf16;
  std::vector<int8_t> i8;
  std::vector<float> scales;
  WeightView view;
  TileWeights(DType dt, uint32_t rows, uint32_t cols) {
    std::mt19937 g(7);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    view.dtype = dt;
    view.rows = rows;
    view.cols = cols;
    if (dt == DType::bf16) {
      bf16.resize(size_t(rows) * cols);
      for (auto& v : bf16) v = f32_to_bf16(u(g));
      view.layout = Layout::vnni2;
      view.data = bf16.data();
    } else {
      i8.resize(size_t(rows) * cols);
      for (auto& v : i8) v = static_cast<int8_t>(u(g) * 127.0f);
      scales.assign(rows, 0.01f);
      view.layout = Layout::vnni4;
      view.data = i8.data();
      view.scales = scales.data();
    }
  }
};

void run_gemm(benchmark::State& state, const Kernels* table, DType dt) {
  const size_t m = size_t(state.range(0)), n = size_t(state.range(1)), k = size_t(state.range(2));
  TileWeights w(dt, uint32_t(n), uint32_t(k));
  std::vector<float> X(m * k, 0.5f), Y(m * n);
  for (auto _ : state) {
    table->matmul(w.view, X.data(), k, m, Y.data(), n);
    benchmark::DoNotOptimize(Y.data());
    benchmark::ClobberMemory();
  }
  state.counters["GFLOP/s"] = benchmark::Counter(
      2.0 * double(m) * double(n) * double(k) * double(state.iterations()) / 1e9,
      benchmark::Counter::kIsRate);
  amx_release_thread_state();
}

bool skip_without_amx(benchmark::State& state) {
  if (amx_status().usable && kernels_amx()) return false;
  state.SkipWithError("architecture unsupported");
  for (auto _ : state) {
  }
  return true;
}

void BM_amx_bf16_gemm_16x16(benchmark::State& state) {
  if (skip_without_amx(state)) return;
  run_gemm(state, kernels_amx(), DType::bf16);
}

void BM_amx_int8_gemm_16x16(benchmark::State& state) {
  if (skip_without_amx(state)) return;
  run_gemm(state, kernels_amx(), DType::i8);
}

void BM_amx_tile_peak(benchmark::State& state) {
  if (skip_without_amx(state)) return;
  constexpr size_t kRounds = 1 << 12;
  double flops = 0.0;
  for (auto _ : state) flops += amx_backend::real_bf16_tile_peak(kRounds);
  state.counters["GFLOP/s"] = benchmark::Counter(flops / 1e9, benchmark::Counter::kIsRate);
  amx_release_thread_state();
}

void BM_amx_emulated_bf16_gemm_16x16(benchmark::State& state) {
  state.SetLabel("emulated");
  run_gemm(state, kernels_amx_emulated(), DType::bf16);
}

// Prefill shapes: 64 tokens x (640 x 256), and a larger 256 x (1024 x 1024).
BENCHMARK(BM_amx_bf16_gemm_16x16)->Args({64, 640, 256})->Args({256, 1024, 1024});
BENCHMARK(BM_amx_int8_gemm_16x16)->Args({64, 640, 256})->Args({256, 1024, 1024});
BENCHMARK(BM_amx_tile_peak);
BENCHMARK(BM_amx_emulated_bf16_gemm_16x16)->Args({64, 640, 256});

}  // namespace
