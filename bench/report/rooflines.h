// rooflines.h — the machine's measured ceilings, taken by the first phase of
// every run (bench_rooflines.cpp's probes plus bench_kernels.cpp's AVX-512 FMA
// peak and bench_amx.cpp's tile peak), so every later benchmark can report
// its speed as a fraction of the ceiling that bounds it.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "amxqa.h"
#include "kernels/kernels.h"

namespace amxqa::bench {

// Read-bandwidth buffer sizes: L1, L2-ish, L2/L3 edges, L3, DRAM.
extern const uint64_t kReadBwSizes[6];
std::string size_label(uint64_t bytes);  // 32768 → "32KiB", 268435456 → "256MiB"

// The benchmarks phase 1 runs (a Google Benchmark filter regex).
extern const char* const kRooflineFilter;

struct Rooflines {
  double fp32_avx2_gflops = 0;                        // BM_peak_fp32_fma_avx2
  double fp32_avx512_gflops = 0;                      // BM_fma_peak_avx512 (bench_kernels.cpp)
  double bf16_gflops = 0;                             // BM_peak_bf16_dot_avx512 (vdpbf16ps)
  double int8_gops = 0;                               // BM_peak_int8_vnni_avx512 (vpdpbusd)
  double int8_maddubs_gops = 0;                       // BM_peak_int8_maddubs_avx2 (vpmaddubsw)
  double amx_bf16_gflops = 0;                         // BM_amx_tile_peak (bench_amx.cpp)
  std::vector<std::pair<uint64_t, double>> read_gbs;  // buffer bytes → GB/s, ascending

  double fp32_gflops() const {
    return fp32_avx512_gflops > fp32_avx2_gflops ? fp32_avx512_gflops : fp32_avx2_gflops;
  }
  // Bandwidth of the smallest measured buffer that holds `bytes`: the cache
  // level a working set of that size streams from. 0 when none was measured.
  double bandwidth_for(uint64_t bytes, uint64_t* level_bytes = nullptr) const;
  // The compute ceiling of matrix products with `dtype` weights on `isa`
  // (GFLOP/s, or GOP/s for int8). 0 when the relevant peak was not measured.
  double compute_peak(amxqa_isa isa, DType dtype) const;
};

// The process-wide ceilings (filled by main after phase 1).
Rooflines& rooflines();

// Fills rooflines() from phase 1's runs (live during a run, or read back
// from the result file by the post-processor).
class ResultSet;
void fill_rooflines(const ResultSet& runs);

}  // namespace amxqa::bench
