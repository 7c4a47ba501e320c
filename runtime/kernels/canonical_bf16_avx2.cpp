// canonical_bf16_avx2.cpp — canonical_bf16.h on 8-lane ymm registers.
//
// Lane layout: a ymm holds 4 outputs x (even, odd), so lane 2j accumulates
// output j's even partial sum and lane 2j+1 its odd one, exactly the two
// fp32 temporaries per output that TDPBF16PS keeps. Per column pair p the
// activations' (x[2p], x[2p+1]) are broadcast as one 64-bit pair and one FMA
// advances 8 partial sums. After each 16-pair chunk, hadd gives even + odd
// per output, and y = y + (e + o). MXCSR's DAZ and FTZ are set while a
// product runs (FlushDenormals), which is the definition's steps 1 and 4.
//
// Prefill (matmul, m >= 4) packs both operands under gemm_blocking.h: A = the
// activations rounded to bf16 (kept as f32 pairs), B = the weights as (output,
// parity) f32 pairs, and a 6-row x 8-output micro-kernel (12 partial sums).
// vnni2 weights ([cols/2][rows][2]) are already (output, parity) ordered: a
// 128-bit load of 4 outputs' pairs widens straight into that layout; plain
// row-major weights are widened 4 pairs of 8 rows at a time and transposed as
// 64-bit pairs (plain_group).
//
// Decode (matvec, rows_dot) has a single activation row, so it keeps the
// lanes over outputs and the two sums in two registers instead (see
// vnni2_rows).
#include "kernels/canonical_bf16_avx2.h"

#include <immintrin.h>

#include <cstring>

#include "kernels/canonical_bf16.h"
#include "kernels/canonical_bf16_x86.h"
#include "kernels/gemm_blocking.h"

namespace amxqa::canonical_bf16 {
namespace {

// (x[2p], x[2p+1]) in every 64-bit lane.
inline __m256 pair_of(const float* x2p) {
  double d;
  std::memcpy(&d, x2p, sizeof d);
  return _mm256_castpd_ps(_mm256_set1_pd(d));
}

// even + odd for 8 outputs, in output order: e0 holds outputs 0-3, e1
// outputs 4-7 as (even, odd) lanes; hadd gives [0 1 4 5 | 2 3 6 7] and the
// 64-bit permute restores the order.
inline __m256 chunk_sum(__m256 e0, __m256 e1) {
  return _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(_mm256_hadd_ps(e0, e1)), 0xd8));
}

// Step 3 for n <= 8 outputs held in memory: y = y + s, s = even + odd per
// output; first: y starts at +0 (a zeroed C tile). Whole groups use plain
// loads and stores: masked stores are slow on some cores and block
// store-to-load forwarding.
inline void add_sum(float* y, size_t n, bool first, __m256 s) {
  if (n == 8) {
    _mm256_storeu_ps(y, _mm256_add_ps(first ? _mm256_setzero_ps() : _mm256_loadu_ps(y), s));
    return;
  }
  const __m256i m = lanes8(n);
  const __m256 prev = first ? _mm256_setzero_ps() : _mm256_maskload_ps(y, m);
  _mm256_maskstore_ps(y, m, _mm256_add_ps(prev, s));
}

// add_sum for (output, parity) lanes: e0 outputs 0-3, e1 outputs 4-7.
inline void add_chunk(float* y, size_t n, bool first, __m256 e0, __m256 e1) {
  add_sum(y, n, first, chunk_sum(e0, e1));
}

// ---- decode: one activation vector against rows of W ---------------------

inline void zero(float* out, size_t n) { std::memset(out, 0, n * sizeof(float)); }

// Decode is one activation row, so the only independent FMA chains are the
// outputs': 32 outputs (4 groups of 8, 8 accumulators) advance together to
// hide the FMA latency. Outputs past n repeat a valid row and are not stored.
constexpr size_t kGroups = 4;

// In-place transpose of 8 x 8 u32: r[i] lane j becomes r[j] lane i.
inline void transpose8x8_epi32(__m256i r[8]) {
  __m256i t[8], u[8];
  for (int i = 0; i < 4; ++i) {
    t[2 * i] = _mm256_unpacklo_epi32(r[2 * i], r[2 * i + 1]);
    t[2 * i + 1] = _mm256_unpackhi_epi32(r[2 * i], r[2 * i + 1]);
  }
  for (int i = 0; i < 2; ++i) {
    u[4 * i + 0] = _mm256_unpacklo_epi64(t[4 * i], t[4 * i + 2]);
    u[4 * i + 1] = _mm256_unpackhi_epi64(t[4 * i], t[4 * i + 2]);
    u[4 * i + 2] = _mm256_unpacklo_epi64(t[4 * i + 1], t[4 * i + 3]);
    u[4 * i + 3] = _mm256_unpackhi_epi64(t[4 * i + 1], t[4 * i + 3]);
  }
  for (int i = 0; i < 4; ++i) {
    r[i] = _mm256_permute2x128_si256(u[i], u[i + 4], 0x20);
    r[i + 4] = _mm256_permute2x128_si256(u[i], u[i + 4], 0x31);
  }
}

// Pairs q..q+7 (columns c = 2q .. 2q+15) of 8 plain rows as u32 pairs with
// the lanes over rows: p[j] lane i = row i's pair q+j. Columns at or past k
// read as zero.
inline void plain_pairs8(const uint16_t* const rows[8], size_t c, size_t k, __m256i p[8]) {
  for (int i = 0; i < 8; ++i) {
    if (c + 16 <= k) {
      p[i] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(rows[i] + c));
    } else {
      alignas(32) uint16_t t[16] = {};
      if (c < k) std::memcpy(t, rows[i] + c, (k - c) * sizeof(uint16_t));
      p[i] = _mm256_load_si256(reinterpret_cast<const __m256i*>(t));
    }
  }
  transpose8x8_epi32(p);
}

// out[i] = W[row(i)] · x for i < n, plain layout: 8 rows' pairs transposed
// so that the lanes are outputs, then as vnni2_rows (even and odd sums in
// two registers per 8 outputs).
template <class Row>
void plain_rows(const WeightView& w, size_t n, Row row, const float* x, float* out) {
  if (w.cols == 0) return zero(out, n);
  const FlushDenormals flush;
  const uint16_t* d = static_cast<const uint16_t*>(w.data);
  const size_t k = w.cols;
  const __m256i hi = _mm256_set1_epi32(static_cast<int>(0xffff0000u));
  alignas(32) float xa[kChunkCols];
  for (size_t c0 = 0; c0 < k; c0 += kChunkCols) {
    round_chunk(x + c0, min_sz(kChunkCols, k - c0), xa);
    for (size_t i = 0; i < n; i += 8 * kGroups) {
      __m256 e[kGroups], o[kGroups];
      for (size_t g = 0; g < kGroups; ++g) e[g] = o[g] = _mm256_setzero_ps();
      // All 16 pairs, padding included (zeros: the sums stay as they are).
      for (size_t q = 0; q < kChunkPairs; q += 8) {
        for (size_t g = 0; g < kGroups; ++g) {
          const uint16_t* rows[8];
          for (size_t r = 0; r < 8; ++r) {
            const size_t at = i + 8 * g + r;
            rows[r] = d + row(at < n ? at : i) * k;  // spare lanes repeat a row, never stored
          }
          __m256i p[8];
          plain_pairs8(rows, c0 + 2 * q, k, p);
          for (size_t j = 0; j < 8; ++j) {
            const float* xp = xa + 2 * (q + j);
            e[g] = _mm256_fmadd_ps(_mm256_broadcast_ss(xp),
                                   _mm256_castsi256_ps(_mm256_slli_epi32(p[j], 16)), e[g]);
            o[g] = _mm256_fmadd_ps(_mm256_broadcast_ss(xp + 1),
                                   _mm256_castsi256_ps(_mm256_and_si256(p[j], hi)), o[g]);
          }
        }
      }
      for (size_t g = 0; g < kGroups && i + 8 * g < n; ++g)
        add_sum(out + i + 8 * g, min_sz(8, n - i - 8 * g), c0 == 0, _mm256_add_ps(e[g], o[g]));
    }
  }
}

// out[i] = W[row(i)] · x for i < n, vnni2 layout; load(pair, i, g) gives the
// 8 u32 pairs of outputs i..i+7 (g of them valid, g >= 1) for one column pair.
// Here the lanes are outputs, with the even and the odd partial sums in two
// registers (the same two sums as the (output, parity) lanes): a pair's low
// half is its even column, so a shift and a mask widen it, and the chunk's
// y + (e + o) is a vertical add.
template <class Load>
void vnni2_rows(const WeightView& w, size_t n, Load load, const float* x, float* out) {
  if (w.cols == 0) return zero(out, n);
  const FlushDenormals flush;
  const size_t k = w.cols, pairs = k / 2;
  const __m256i hi = _mm256_set1_epi32(static_cast<int>(0xffff0000u));
  alignas(32) float xa[kChunkCols];
  for (size_t c0 = 0; c0 < k; c0 += kChunkCols) {
    round_chunk(x + c0, min_sz(kChunkCols, k - c0), xa);
    const size_t q0 = c0 / 2, qn = min_sz(kChunkPairs, pairs - q0);
    for (size_t i = 0; i < n; i += 8 * kGroups) {
      size_t base[kGroups], valid[kGroups];  // spare groups repeat outputs i.., never stored
      for (size_t g = 0; g < kGroups; ++g) {
        base[g] = i + 8 * g < n ? i + 8 * g : i;
        valid[g] = min_sz(8, n - base[g]);
      }
      __m256 e[kGroups], o[kGroups];
      for (size_t g = 0; g < kGroups; ++g) e[g] = o[g] = _mm256_setzero_ps();
      // Pairs past the last are padding (0 · 0, as the tiles multiply it):
      // they leave every partial sum as it is, so they are skipped.
      for (size_t q = 0; q < qn; ++q) {
        const __m256 xe = _mm256_set1_ps(xa[2 * q]), xo = _mm256_set1_ps(xa[2 * q + 1]);
        for (size_t g = 0; g < kGroups; ++g) {
          const __m256i u = load(q0 + q, base[g], valid[g]);
          e[g] = _mm256_fmadd_ps(xe, _mm256_castsi256_ps(_mm256_slli_epi32(u, 16)), e[g]);
          o[g] = _mm256_fmadd_ps(xo, _mm256_castsi256_ps(_mm256_and_si256(u, hi)), o[g]);
        }
      }
      for (size_t g = 0; g < kGroups && i + 8 * g < n; ++g)
        add_sum(out + i + 8 * g, min_sz(8, n - i - 8 * g), c0 == 0, _mm256_add_ps(e[g], o[g]));
    }
  }
}

// ---- prefill: both operands packed under gemm_blocking.h ----------------

constexpr size_t kMR = 6, kNR = 8, kKC = 128, kNC = 128;  // KC, kc: column pairs
static_assert(kKC % kChunkPairs == 0, "K blocks are whole chunks");

// a: [M][kKC] pairs of rounded activations; b: [kc][8] (output, parity) pairs.
// Per row two partial-sum registers (8 outputs x even/odd): 12 + 2 B + 1 A =
// 15 ymm; y stays in C between chunks (add_chunk), which costs one load and
// one store per row every 16 pairs.
template <int M>
void kernel(size_t kc, const Pair* a, const Pair* b, float* c, size_t ldc, size_t nr,
            bool first) {
  const float* af = &a[0].even;
  const float* bf = &b[0].even;
  for (size_t q0 = 0; q0 < kc; q0 += kChunkPairs) {
    __m256 e0[M], e1[M];
    for (int i = 0; i < M; ++i) e0[i] = e1[i] = _mm256_setzero_ps();
    for (size_t q = q0; q < q0 + kChunkPairs; ++q) {
      const __m256 b0 = _mm256_load_ps(bf + q * 16), b1 = _mm256_load_ps(bf + q * 16 + 8);
#pragma GCC unroll 6
      for (int i = 0; i < M; ++i) {
        const __m256 xp = pair_of(af + (i * kKC + q) * 2);
        e0[i] = _mm256_fmadd_ps(xp, b0, e0[i]);
        e1[i] = _mm256_fmadd_ps(xp, b1, e1[i]);
      }
    }
    for (int i = 0; i < M; ++i) add_chunk(c + i * ldc, nr, first && q0 == 0, e0[i], e1[i]);
  }
}

// The micro-kernel for mr = 1 .. kMR rows.
struct Micro {
  static void run(size_t mr, size_t kc, const Pair* a, const Pair* b, float* c, size_t ldc,
                  size_t nr, bool first) {
    switch (mr) {
      case 1: return kernel<1>(kc, a, b, c, ldc, nr, first);
      case 2: return kernel<2>(kc, a, b, c, ldc, nr, first);
      case 3: return kernel<3>(kc, a, b, c, ldc, nr, first);
      case 4: return kernel<4>(kc, a, b, c, ldc, nr, first);
      case 5: return kernel<5>(kc, a, b, c, ldc, nr, first);
      default: return kernel<6>(kc, a, b, c, ldc, nr, first);
    }
  }
};

// Below this many rows, streaming the weights per row beats packing them.
constexpr size_t kMatmulMinRows = 4;

}  // namespace

void matvec_avx2(const WeightView& w, const float* x, float* y) {
  if (w.layout == Layout::vnni2) {
    const uint32_t* d = static_cast<const uint32_t*>(w.data);
    return vnni2_rows(
        w, w.rows,
        [&](size_t q, size_t i, size_t g) {
          const uint32_t* src = d + q * w.rows + i;
          if (g == 8) return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src));
          return _mm256_maskload_epi32(reinterpret_cast<const int*>(src), lanes8(g));
        },
        x, y);
  }
  plain_rows(w, w.rows, [](size_t i) { return i; }, x, y);
}

void rows_dot_avx2(const WeightView& w, const uint32_t* ids, size_t n, const float* x,
                   float* out) {
  if (w.layout == Layout::vnni2) {
    const int* d = static_cast<const int*>(w.data);
    return vnni2_rows(
        w, n,
        [&](size_t q, size_t i, size_t g) {
          // Ids past g repeat ids[i] (a valid row); their lanes are never stored.
          alignas(32) int idx[8];
          for (size_t r = 0; r < 8; ++r) idx[r] = static_cast<int>(ids[i + (r < g ? r : 0)]);
          return _mm256_i32gather_epi32(d + q * w.rows, _mm256_load_si256(reinterpret_cast<const __m256i*>(idx)), 4);
        },
        x, out);
  }
  plain_rows(w, n, [ids](size_t i) { return ids[i]; }, x, out);
}

void matmul_avx2(const WeightView& w, const float* X, size_t ldx, size_t m, float* Y,
                 size_t ldy) {
  if (m == 0 || w.rows == 0) return;
  if (m < kMatmulMinRows || w.cols == 0) {
    for (size_t i = 0; i < m; ++i) matvec_avx2(w, X + i * ldx, Y + i * ldy);
    return;
  }
  blocked_product<Bf16Gemm<kMR, kNR, kKC, kNC, Micro>>(w, X, ldx, m, Y, ldy);
}

}  // namespace amxqa::canonical_bf16
