// bench_rooflines.cpp — the ceilings every other figure is judged against
// (main() runs these first and stores them in report/rooflines.h):
//
//   BM_peak_fp32_fma_avx2        12 independent ymm FMA chains (AVX2 machines;
//                                the AVX-512 f32 peak is bench_kernels.cpp's
//                                BM_fma_peak_avx512, not repeated here)
//   BM_peak_bf16_dot_avx512      12 vdpbf16ps zmm chains: 64 flops each
//   BM_peak_int8_vnni_avx512     12 vpdpbusd zmm chains: 128 int8 ops each
//   BM_peak_int8_maddubs_avx2    12 vpmaddubsw ymm chains: 64 int8 ops each
//                                (its pair sums are int16: an exact int32
//                                product also needs a vpmaddwd per
//                                vpmaddubsw, or per 2 or 4 of them where
//                                their int16 sum provably fits, as AVX2's
//                                7-bit kernel does; both share ports, and
//                                bench_kernels.cpp's AVX2 int8 rows report
//                                maddubs_frac against this)
//   BM_peak_int8_exact_avx2/span:S  the exact int32 product's whole mix on
//                                registers: per 4 vpmaddubsw, 4/S vpmaddwd
//                                widenings, S-1 vpaddw per span and a vpaddd
//                                per widening (canonical_i8_avx2.cpp's 7-bit
//                                kernel at span S, without its loads). The
//                                ceiling of that kernel on this core, in the
//                                same int8 ops as the row above: where the
//                                vector ALU has three ports (Intel) the mix
//                                caps it well below the vpmaddubsw peak.
//   BM_peak_int8_kernel_mix_avx2/bias:B  that kernel's register block as it
//                                runs, span 4, on operands in L1: 6 rows,
//                                4 groups of weights loaded a chunk (made
//                                unsigned by a vpaddb each when B = 1, as
//                                the kernel does; B = 0 is what weights
//                                stored unsigned would allow), activations
//                                broadcast from memory. No quantisation,
//                                spans or stores: the kernel's ceiling.
//   BM_read_bw/<bytes>           streaming read of a 32 KiB … 256 MiB buffer
//                                (L1, L2, L2/L3, L3, L3, DRAM on most cores)
// The AMX tile peak is bench_amx.cpp's BM_amx_tile_peak.
// An ISA the CPU or OS lacks reports "architecture unsupported".
#include <benchmark/benchmark.h>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "amxqa.h"
#include "report/rooflines.h"

namespace {

const amxqa_cpu_info& cpu() {
  static const amxqa_cpu_info info = [] {
    amxqa_cpu_info i = amxqa_cpu_info_init();
    amxqa_cpu_query(&i);
    return i;
  }();
  return info;
}

// Every later fraction divides by these, so even a --quick run gives each
// probe a tenth of a second (a shared machine's noise averages out).
constexpr double kProbeSeconds = 0.1;

#if defined(__x86_64__)  // the peak probes are x86 code; elsewhere only BM_read_bw runs
constexpr int kChains = 12;  // covers latency 4-6 × 2 pipes on current cores
constexpr int64_t kRounds = 50000;

__attribute__((target("avx2,fma"), noinline)) float fp32_fma_chains_avx2(int64_t rounds) {
  __m256 acc[kChains];
  const __m256 mul = _mm256_set1_ps(0.999999f), add = _mm256_set1_ps(1e-6f);
  for (int i = 0; i < kChains; ++i) acc[i] = _mm256_set1_ps(float(i));
  for (int64_t t = 0; t < rounds; ++t) {
#pragma GCC unroll 12
    for (int i = 0; i < kChains; ++i) acc[i] = _mm256_fmadd_ps(acc[i], mul, add);
  }
  __m256 s = acc[0];
  for (int i = 1; i < kChains; ++i) s = _mm256_add_ps(s, acc[i]);
  alignas(32) float lanes[8];
  _mm256_store_ps(lanes, s);
  return lanes[0] + lanes[7];
}

__attribute__((target("avx512f,avx512bf16"), noinline)) float bf16_dot_chains(int64_t rounds) {
  __m512 acc[kChains];
  const __m512bh a = (__m512bh)_mm512_set1_epi16(0x3f80);  // bf16 1.0
  const __m512bh b = (__m512bh)_mm512_set1_epi16(0x3400);  // bf16 ~1.2e-7
  for (int i = 0; i < kChains; ++i) acc[i] = _mm512_set1_ps(float(i));
  for (int64_t t = 0; t < rounds; ++t) {
#pragma GCC unroll 12
    for (int i = 0; i < kChains; ++i) acc[i] = _mm512_dpbf16_ps(acc[i], a, b);
  }
  __m512 s = acc[0];
  for (int i = 1; i < kChains; ++i) s = _mm512_add_ps(s, acc[i]);
  alignas(64) float lanes[16];  // (not _mm512_reduce_*: GCC 12 warns inside it)
  _mm512_store_ps(lanes, s);
  return lanes[0] + lanes[15];
}

__attribute__((target("avx512f,avx512vnni"), noinline)) int int8_vnni_chains(int64_t rounds) {
  __m512i acc[kChains];
  const __m512i a = _mm512_set1_epi8(3), b = _mm512_set1_epi8(-2);
  for (int i = 0; i < kChains; ++i) acc[i] = _mm512_set1_epi32(i);
  for (int64_t t = 0; t < rounds; ++t) {
#pragma GCC unroll 12
    for (int i = 0; i < kChains; ++i) acc[i] = _mm512_dpbusd_epi32(acc[i], a, b);
  }
  __m512i s = acc[0];
  for (int i = 1; i < kChains; ++i) s = _mm512_add_epi32(s, acc[i]);
  alignas(64) int lanes[16];
  _mm512_store_si512(lanes, s);
  return lanes[0] + lanes[15];
}

__attribute__((target("avx2"), noinline)) int int8_maddubs_chains(int64_t rounds) {
  __m256i acc[kChains];
  const __m256i b = _mm256_set1_epi8(1);
  for (int i = 0; i < kChains; ++i) acc[i] = _mm256_set1_epi8(static_cast<char>(i));
  for (int64_t t = 0; t < rounds; ++t) {
#pragma GCC unroll 12
    for (int i = 0; i < kChains; ++i) acc[i] = _mm256_maddubs_epi16(acc[i], b);
  }
  __m256i s = acc[0];
  for (int i = 1; i < kChains; ++i) s = _mm256_add_epi16(s, acc[i]);
  return _mm256_extract_epi32(s, 0);
}

// The exact product's instruction mix at span Span (see the top), 4 chains
// of 4 vpmaddubsw a round; each chain's next activations are its last int16
// sum, so nothing folds away.
template <int Span>
__attribute__((target("avx2"), noinline)) int int8_exact_chains(int64_t rounds) {
  constexpr int kExactChains = 4;  // 4 sums, 4 states, 4 weights, ones: 13 registers
  __m256i x[kExactChains], acc[kExactChains];
  const __m256i w[4] = {_mm256_set1_epi8(1), _mm256_set1_epi8(2), _mm256_set1_epi8(3),
                        _mm256_set1_epi8(5)};
  const __m256i ones = _mm256_set1_epi16(1);
  for (int i = 0; i < kExactChains; ++i) {
    x[i] = _mm256_set1_epi8(static_cast<char>(i));
    acc[i] = _mm256_setzero_si256();
  }
  for (int64_t t = 0; t < rounds; ++t) {
#pragma GCC unroll 4
    for (int i = 0; i < kExactChains; ++i) {
      __m256i s = _mm256_setzero_si256();
#pragma GCC unroll 4
      for (int g = 0; g < 4; ++g) {
        const __m256i p = _mm256_maddubs_epi16(w[g], x[i]);
        s = g % Span ? _mm256_add_epi16(s, p) : p;
        if (g % Span == Span - 1) acc[i] = _mm256_add_epi32(acc[i], _mm256_madd_epi16(s, ones));
      }
      x[i] = s;
    }
  }
  __m256i s = acc[0];
  for (int i = 1; i < kExactChains; ++i) s = _mm256_add_epi32(s, _mm256_add_epi32(acc[i], x[i]));
  return _mm256_extract_epi32(s, 0);
}

// Runs one probe, reporting `ops_per_round` operations per round as GFLOP/s.
template <typename Probe>
void run_peak(benchmark::State& state, Probe probe, double ops_per_round) {
  for (auto _ : state) {
    int64_t rounds = kRounds;
    benchmark::DoNotOptimize(rounds);  // the probe is pure: keep it in the loop
    benchmark::DoNotOptimize(probe(rounds));
  }
  state.counters["GFLOP/s"] =
      benchmark::Counter(ops_per_round * double(kRounds) * double(state.iterations()) / 1e9,
                         benchmark::Counter::kIsRate);
}

void BM_peak_fp32_fma_avx2(benchmark::State& state) {
  if (!cpu().has_avx2_fma) return state.SkipWithError("architecture unsupported");
  run_peak(state, fp32_fma_chains_avx2, kChains * 8.0 * 2.0);
}
BENCHMARK(BM_peak_fp32_fma_avx2)->MinTime(kProbeSeconds);

void BM_peak_bf16_dot_avx512(benchmark::State& state) {
  if (!cpu().has_avx512 || !cpu().has_avx512_bf16)
    return state.SkipWithError("architecture unsupported");
  run_peak(state, bf16_dot_chains, kChains * 16.0 * 2.0 * 2.0);  // 16 lanes × 2 pairs × mul+add
}
BENCHMARK(BM_peak_bf16_dot_avx512)->MinTime(kProbeSeconds);

void BM_peak_int8_vnni_avx512(benchmark::State& state) {
  if (!cpu().has_avx512 || !cpu().has_avx512_vnni)
    return state.SkipWithError("architecture unsupported");
  run_peak(state, int8_vnni_chains, kChains * 16.0 * 4.0 * 2.0);  // 16 lanes × 4 bytes × mul+add
}
BENCHMARK(BM_peak_int8_vnni_avx512)->MinTime(kProbeSeconds);

void BM_peak_int8_maddubs_avx2(benchmark::State& state) {
  if (!cpu().has_avx2_fma) return state.SkipWithError("architecture unsupported");
  run_peak(state, int8_maddubs_chains, kChains * 16.0 * 2.0 * 2.0);  // 16 lanes × 2 bytes × mul+add
}
BENCHMARK(BM_peak_int8_maddubs_avx2)->MinTime(kProbeSeconds);

void BM_peak_int8_exact_avx2(benchmark::State& state) {
  if (!cpu().has_avx2_fma) return state.SkipWithError("architecture unsupported");
  const double ops = 4 * 4 * 16.0 * 2.0 * 2.0;  // 4 chains × 4 vpmaddubsw, as the row above
  switch (state.range(0)) {
    case 1: return run_peak(state, int8_exact_chains<1>, ops);
    case 2: return run_peak(state, int8_exact_chains<2>, ops);
    default: return run_peak(state, int8_exact_chains<4>, ops);
  }
}
BENCHMARK(BM_peak_int8_exact_avx2)->ArgName("span")->Arg(1)->Arg(2)->Arg(4)->MinTime(kProbeSeconds);

// The 7-bit kernel's span-4 chunk (canonical_i8_avx2.cpp NarrowKernel) over
// 64 groups of weights and 6 rows of activations that stay in L1, `rounds`
// times. The asm barrier makes every round reload its operands.
template <bool Bias>
__attribute__((target("avx2"), noinline)) int int8_kernel_mix(int64_t rounds) {
  constexpr int kRows = 6, kGroups = 64;
  alignas(32) static int8_t w[kGroups * 32], x[kRows][kGroups * 4];
  for (int i = 0; i < kGroups * 32; ++i) w[i] = static_cast<int8_t>(i % 97 - 48);
  for (int r = 0; r < kRows; ++r)
    for (int i = 0; i < kGroups * 4; ++i) x[r][i] = static_cast<int8_t>((i * 7 + r) % 61 - 30);
  const __m256i ones = _mm256_set1_epi16(1), bias = _mm256_set1_epi8(64);
  __m256i acc[kRows];
  for (auto& a : acc) a = _mm256_setzero_si256();
  for (int64_t t = 0; t < rounds; ++t) {
    const int8_t* wp = w;
    const int8_t* xp = &x[0][0];
    asm volatile("" : "+r"(wp), "+r"(xp));
    for (int g = 0; g < kGroups; g += 4) {
      __m256i b[4];
      for (int j = 0; j < 4; ++j) {
        b[j] = _mm256_load_si256(reinterpret_cast<const __m256i*>(wp + 32 * (g + j)));
        if (Bias) b[j] = _mm256_add_epi8(b[j], bias);
      }
#pragma GCC unroll 6
      for (int r = 0; r < kRows; ++r) {
        __m256i s = _mm256_setzero_si256();
#pragma GCC unroll 4
        for (int j = 0; j < 4; ++j) {
          int32_t v;
          std::memcpy(&v, xp + r * kGroups * 4 + 4 * (g + j), 4);
          const __m256i p = _mm256_maddubs_epi16(b[j], _mm256_set1_epi32(v));
          s = j ? _mm256_add_epi16(s, p) : p;
        }
        acc[r] = _mm256_add_epi32(acc[r], _mm256_madd_epi16(s, ones));
      }
    }
  }
  __m256i s = acc[0];
  for (int r = 1; r < kRows; ++r) s = _mm256_add_epi32(s, acc[r]);
  return _mm256_extract_epi32(s, 0);
}

void BM_peak_int8_kernel_mix_avx2(benchmark::State& state) {
  if (!cpu().has_avx2_fma) return state.SkipWithError("architecture unsupported");
  const double ops = 6 * 64 * 16.0 * 2.0 * 2.0;  // 6 rows × 64 groups vpmaddubsw, as the rows above
  if (state.range(0)) return run_peak(state, int8_kernel_mix<true>, ops);
  run_peak(state, int8_kernel_mix<false>, ops);
}
BENCHMARK(BM_peak_int8_kernel_mix_avx2)->ArgName("bias")->Arg(1)->Arg(0)->MinTime(kProbeSeconds);

// Sums a buffer with 8 independent vector accumulators (integer adds: one
// cycle latency, so the loads are the only limit).
__attribute__((target("avx512f"), noinline)) uint64_t read_sum_avx512(const uint8_t* p, size_t n) {
  __m512i acc[8];
  for (auto& a : acc) a = _mm512_setzero_si512();
  for (size_t i = 0; i + 512 <= n; i += 512) {
#pragma GCC unroll 8
    for (int k = 0; k < 8; ++k)
      acc[k] = _mm512_add_epi64(acc[k],
                                _mm512_load_si512(reinterpret_cast<const void*>(p + i + 64 * k)));
  }
  for (int k = 1; k < 8; ++k) acc[0] = _mm512_add_epi64(acc[0], acc[k]);
  alignas(64) uint64_t lanes[8];
  _mm512_store_si512(lanes, acc[0]);
  uint64_t sum = 0;
  for (uint64_t v : lanes) sum += v;
  return sum;
}

__attribute__((target("avx2"), noinline)) uint64_t read_sum_avx2(const uint8_t* p, size_t n) {
  __m256i acc[8];
  for (auto& a : acc) a = _mm256_setzero_si256();
  for (size_t i = 0; i + 256 <= n; i += 256) {
#pragma GCC unroll 8
    for (int k = 0; k < 8; ++k)
      acc[k] = _mm256_add_epi64(
          acc[k], _mm256_load_si256(reinterpret_cast<const __m256i*>(p + i + 32 * k)));
  }
  for (int k = 1; k < 8; ++k) acc[0] = _mm256_add_epi64(acc[0], acc[k]);
  alignas(32) uint64_t lanes[4];
  _mm256_store_si256(reinterpret_cast<__m256i*>(lanes), acc[0]);
  return lanes[0] + lanes[1] + lanes[2] + lanes[3];
}

#endif

uint64_t read_sum_portable(const uint8_t* p, size_t n) {
  const uint64_t* w = reinterpret_cast<const uint64_t*>(p);
  uint64_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  for (size_t i = 0; i + 4 <= n / 8; i += 4)
    s0 += w[i], s1 += w[i + 1], s2 += w[i + 2], s3 += w[i + 3];
  return s0 + s1 + s2 + s3;
}

void BM_read_bw(benchmark::State& state) {
  const size_t bytes = size_t(state.range(0));
  uint8_t* buf = static_cast<uint8_t*>(std::aligned_alloc(64, bytes));
  if (!buf) return state.SkipWithError("out of memory");
  for (size_t i = 0; i < bytes; ++i) buf[i] = uint8_t(i * 131u);  // touch every page
  [[maybe_unused]] const bool z = cpu().has_avx512, y = cpu().has_avx2_fma;
  for (auto _ : state) {
#if defined(__x86_64__)
    const uint64_t s = z   ? read_sum_avx512(buf, bytes)
                       : y ? read_sum_avx2(buf, bytes)
                           : read_sum_portable(buf, bytes);
#else
    const uint64_t s = read_sum_portable(buf, bytes);
#endif
    benchmark::DoNotOptimize(s);
  }
  state.counters["GB/s"] = benchmark::Counter(double(bytes) * double(state.iterations()) / 1e9,
                                              benchmark::Counter::kIsRate);
  state.counters["bytes"] = double(bytes);
  state.SetLabel(z ? "avx512" : y ? "avx2" : "portable");
  std::free(buf);
}

[[maybe_unused]] const bool kRegistered = [] {
  auto* b = benchmark::RegisterBenchmark("BM_read_bw", BM_read_bw);
  for (uint64_t size : amxqa::bench::kReadBwSizes) b->Arg(int64_t(size));
  b->Unit(benchmark::kMicrosecond)->MinTime(kProbeSeconds);
  return true;
}();

}  // namespace
