// rooflines.cpp — see rooflines.h.
#include "report/rooflines.h"

#include <cstdio>

#include "report/result_set.h"

namespace amxqa::bench {

const uint64_t kReadBwSizes[6] = {32ull << 10, 256ull << 10, 1ull << 20,
                                  4ull << 20,  16ull << 20,  256ull << 20};

const char* const kRooflineFilter = "^BM_(fma_peak|peak_|read_bw|amx_tile_peak)";

std::string size_label(uint64_t bytes) {
  char buf[32];
  if (bytes >= (1ull << 20) && bytes % (1ull << 20) == 0)
    std::snprintf(buf, sizeof buf, "%lluMiB", static_cast<unsigned long long>(bytes >> 20));
  else if (bytes >= 1024 && bytes % 1024 == 0)
    std::snprintf(buf, sizeof buf, "%lluKiB", static_cast<unsigned long long>(bytes >> 10));
  else
    std::snprintf(buf, sizeof buf, "%lluB", static_cast<unsigned long long>(bytes));
  return buf;
}

Rooflines& rooflines() {
  static Rooflines r;
  return r;
}

void fill_rooflines(const ResultSet& runs) {
  Rooflines& r = rooflines();
  auto gflops = [&](const char* name) {
    const BenchResult* b = runs.find(name);
    if (!b) return 0.0;
    auto it = b->counters.find("GFLOP/s");
    return it == b->counters.end() ? 0.0 : it->second;
  };
  r.fp32_avx2_gflops = gflops("BM_peak_fp32_fma_avx2");
  r.fp32_avx512_gflops = gflops("BM_fma_peak_avx512");
  r.bf16_gflops = gflops("BM_peak_bf16_dot_avx512");
  r.int8_gops = gflops("BM_peak_int8_vnni_avx512");
  r.int8_maddubs_gops = gflops("BM_peak_int8_maddubs_avx2");
  r.amx_bf16_gflops = gflops("BM_amx_tile_peak");
  r.read_gbs.clear();
  for (uint64_t size : kReadBwSizes) {
    const BenchResult* b = runs.find("BM_read_bw/" + std::to_string(size));
    if (!b) continue;
    auto it = b->counters.find("GB/s");
    if (it != b->counters.end() && it->second > 0) r.read_gbs.emplace_back(size, it->second);
  }
}

double Rooflines::bandwidth_for(uint64_t bytes, uint64_t* level_bytes) const {
  for (const auto& [size, gbs] : read_gbs) {
    if (size >= bytes && gbs > 0) {
      if (level_bytes) *level_bytes = size;
      return gbs;
    }
  }
  // Larger than every buffer: the largest (DRAM) buffer is the right level.
  if (!read_gbs.empty()) {
    if (level_bytes) *level_bytes = read_gbs.back().first;
    return read_gbs.back().second;
  }
  return 0.0;
}

double Rooflines::compute_peak(amxqa_isa isa, DType dtype) const {
  switch (isa) {
    case AMXQA_ISA_AMX:
      // Tiles run bf16 and int8 prefill; int8 tiles retire twice the bf16
      // operations per instruction (TDPBSSD vs TDPBF16PS). f32 models run
      // their GEMMs on AVX-512.
      if (dtype == DType::bf16 && amx_bf16_gflops > 0) return amx_bf16_gflops;
      if (dtype == DType::i8 && amx_bf16_gflops > 0) return 2.0 * amx_bf16_gflops;
      return fp32_avx512_gflops;
    case AMXQA_ISA_AVX512:
      if (dtype == DType::bf16 && bf16_gflops > 0) return bf16_gflops;
      if (dtype == DType::i8 && int8_gops > 0) return int8_gops;
      return fp32_avx512_gflops;
    case AMXQA_ISA_AVX2:
      return fp32_avx2_gflops;  // bf16 / i8 weights are widened to f32 FMAs
    default:
      // The oracle and the portable ops.h code are judged against the core's
      // f32 peak: what the same arithmetic could reach.
      return fp32_gflops();
  }
}

}  // namespace amxqa::bench
