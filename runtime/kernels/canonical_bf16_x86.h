// canonical_bf16_x86.h — the vector pieces of canonical_bf16.h that the AVX2
// (canonical_bf16_avx2.cpp) and the AVX-512 (canonical_bf16_avx512.cpp)
// kernels share: MXCSR's flush modes, the activations' bf16 rounding, and the
// packing of plain row-major weights into (output, parity) pairs.
//
// Included only by *_avx2.cpp / *_avx512.cpp files (compiled with at least
// AVX2 + FMA); everything is in an anonymous namespace so that each file gets
// its own copy, compiled with its own ISA flags (no ODR mixing).
#pragma once
#include <immintrin.h>

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "kernels/canonical_bf16.h"
#include "kernels/gemm_blocking.h"

namespace amxqa::canonical_bf16 {
namespace {

// DAZ and FTZ for the lifetime of one product; the caller's MXCSR is restored.
struct FlushDenormals {
  unsigned saved;
  FlushDenormals() : saved(_mm_getcsr()) { _mm_setcsr(saved | 0x8040u); }
  ~FlushDenormals() { _mm_setcsr(saved); }
  FlushDenormals(const FlushDenormals&) = delete;
  FlushDenormals& operator=(const FlushDenormals&) = delete;
};

inline size_t min_sz(size_t a, size_t b) { return a < b ? a : b; }

inline __m256i lanes8(size_t n) {
  const __m256i idx = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(n > 8 ? 8 : n)), idx);
}

// 8 bf16 (4 pairs) → 8 f32, in place order (exact).
inline __m256 widen(__m128i v) {
  return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(v), 16));
}

// Step 1 on 8 activations: bf16 round to nearest even (NaN kept quiet), as f32.
// DAZ of the result is left to MXCSR.
inline __m256 round_activations(__m256 x) {
  const __m256i u = _mm256_castps_si256(x);
  const __m256i hi = _mm256_set1_epi32(static_cast<int>(0xffff0000u));
  const __m256i lsb = _mm256_and_si256(_mm256_srli_epi32(u, 16), _mm256_set1_epi32(1));
  const __m256i rounded =
      _mm256_and_si256(_mm256_add_epi32(u, _mm256_add_epi32(_mm256_set1_epi32(0x7fff), lsb)), hi);
  const __m256i is_nan = _mm256_cmpgt_epi32(
      _mm256_and_si256(u, _mm256_set1_epi32(0x7fffffff)), _mm256_set1_epi32(0x7f800000));
  const __m256i quiet = _mm256_or_si256(_mm256_and_si256(u, hi), _mm256_set1_epi32(0x00400000));
  return _mm256_castsi256_ps(_mm256_blendv_epi8(rounded, quiet, is_nan));
}

// dst[0..32) = rounded x[0..n), zero past n (n <= 32): one chunk's activations.
inline void round_chunk(const float* x, size_t n, float* dst) {
  for (size_t c = 0; c < kChunkCols; c += 8) {
    const size_t left = n > c ? n - c : 0;
    const __m256i m = lanes8(left);
    _mm256_store_ps(dst + c, _mm256_and_ps(_mm256_castsi256_ps(m),
                                           round_activations(_mm256_maskload_ps(x + c, m))));
  }
}

// Plain weights: columns c..c+7 (4 pairs) of 8 rows as (output, parity) f32:
// v[q][h] = pair q of rows 4h..4h+3. Columns at or past k read as zero
// (the padding of the last chunk, which the tiles multiply too).
inline void plain_group(const uint16_t* const rows[8], size_t c, size_t k, __m256 v[4][2]) {
  __m256d r[8];
  for (int i = 0; i < 8; ++i) {
    __m128i raw;
    if (c + 8 <= k) {
      raw = _mm_loadu_si128(reinterpret_cast<const __m128i*>(rows[i] + c));
    } else {
      alignas(16) uint16_t t[8] = {};
      if (c < k) std::memcpy(t, rows[i] + c, (k - c) * sizeof(uint16_t));
      raw = _mm_load_si128(reinterpret_cast<const __m128i*>(t));
    }
    r[i] = _mm256_castps_pd(widen(raw));  // 4 doubles = pairs 0..3 of row i
  }
  for (int h = 0; h < 2; ++h) {
    const __m256d* g = r + 4 * h;
    const __m256d t0 = _mm256_unpacklo_pd(g[0], g[1]), t1 = _mm256_unpackhi_pd(g[0], g[1]);
    const __m256d t2 = _mm256_unpacklo_pd(g[2], g[3]), t3 = _mm256_unpackhi_pd(g[2], g[3]);
    v[0][h] = _mm256_castpd_ps(_mm256_permute2f128_pd(t0, t2, 0x20));
    v[1][h] = _mm256_castpd_ps(_mm256_permute2f128_pd(t1, t3, 0x20));
    v[2][h] = _mm256_castpd_ps(_mm256_permute2f128_pd(t0, t2, 0x31));
    v[3][h] = _mm256_castpd_ps(_mm256_permute2f128_pd(t1, t3, 0x31));
  }
}

// One column pair of one output, widened to f32: the packed prefill B element.
struct Pair {
  float even, odd;
};

// vnni2 weights: pair q of the 8 outputs whose pairs `u` holds (u32 each).
inline void vnni2_pair(__m256i u, __m256* v0, __m256* v1) {
  *v0 = widen(_mm256_castsi256_si128(u));
  *v1 = widen(_mm256_extracti128_si256(u, 1));
}

// dst[i * stride + q] = the rounded activation pair (X[i][2(p0+q)],
// X[i][2(p0+q)+1]) for i < mr and q < kc; columns at or past k read as zero.
inline void pack_activation_pairs(const float* X, size_t ldx, size_t k, size_t mr, size_t p0,
                                  size_t kc, size_t stride, Pair* dst) {
  for (size_t i = 0; i < mr; ++i) {
    const float* src = X + i * ldx;
    float* out = &dst[i * stride].even;
    for (size_t c = 0; c < 2 * kc; c += 8) {
      const size_t col = 2 * p0 + c, left = k > col ? k - col : 0;
      if (left >= 8) {
        _mm256_storeu_ps(out + c, round_activations(_mm256_loadu_ps(src + col)));
        continue;
      }
      const __m256i m = lanes8(left);
      _mm256_storeu_ps(out + c, _mm256_and_ps(_mm256_castsi256_ps(m),
                                              round_activations(_mm256_maskload_ps(src + col, m))));
    }
  }
}

// Column pairs p0 .. p0+kc-1 (kc a multiple of 4) of the 8 outputs j0 ..
// j0+7, nr of them valid (the others repeat output j0 and are never stored),
// as (output, parity) f32: out[q * stride + 0 .. 15]. Pairs past the weights'
// columns are zeros (the padding of the last chunk).
inline void pack_weight_pairs8(const WeightView& w, size_t j0, size_t nr, size_t p0, size_t kc,
                               float* out, size_t stride) {
  const size_t k = w.cols;
  if (w.layout == Layout::vnni2) {
    const uint32_t* d = static_cast<const uint32_t*>(w.data);
    const __m256i m = lanes8(nr);
    for (size_t q = 0; q < kc; ++q) {
      __m256 v0 = _mm256_setzero_ps(), v1 = v0;
      if (p0 + q < k / 2)
        vnni2_pair(
            _mm256_maskload_epi32(reinterpret_cast<const int*>(d + (p0 + q) * w.rows + j0), m),
            &v0, &v1);
      _mm256_store_ps(out + q * stride, v0);
      _mm256_store_ps(out + q * stride + 8, v1);
    }
    return;
  }
  const uint16_t* d = static_cast<const uint16_t*>(w.data);
  const uint16_t* rows[8];
  for (size_t r = 0; r < 8; ++r) rows[r] = d + (j0 + (r < nr ? r : 0)) * k;
  for (size_t q = 0; q < kc; q += 4) {
    __m256 v[4][2];
    plain_group(rows, 2 * (p0 + q), k, v);
    for (size_t j = 0; j < 4; ++j) {
      _mm256_store_ps(out + (q + j) * stride, v[j][0]);
      _mm256_store_ps(out + (q + j) * stride + 8, v[j][1]);
    }
  }
}

// gemm_blocking.h's traits for a canonical bf16 prefill GEMM (Y = X · Wᵀ):
// the activations and the weights packed by the helpers above, NR outputs
// (a multiple of 8) per B panel, and the ISA's micro-kernel
// Micro::run(mr, kc, a, b, c, ldc, nr, first).
template <size_t MR_, size_t NR_, size_t KC_, size_t NC_, class Micro>
struct Bf16Gemm {
  static constexpr size_t MR = MR_, NR = NR_, KC = KC_, NC = NC_;
  static_assert(NR % 8 == 0, "B panels are packed 8 outputs at a time");
  using AElem = Pair;
  using BElem = Pair;
  const WeightView* w;
  const float* X;
  size_t ldx;

  // dst[i][q] = rounded (X[i][2q], X[i][2q+1]) for pairs p0.. (zero past K).
  const Pair* pack_a(size_t i0, size_t mr, size_t p0, size_t kc, Pair* dst) const {
    pack_activation_pairs(X + i0 * ldx, ldx, w->cols, mr, p0, kc, KC, dst);
    return dst;
  }

  // dst[panel][q][NR]: each panel is NR / 8 groups of 8 outputs side by side;
  // groups past the outputs are zeros (their sums are never stored).
  void pack_b(size_t j0, size_t nc, size_t p0, size_t kc, Pair* dst) const {
    for (size_t jr = 0; jr < nc; jr += NR, dst += kc * NR)
      for (size_t h = 0; h < NR; h += 8) {
        if (jr + h < nc) {
          pack_weight_pairs8(*w, j0 + jr + h, min_sz(8, nc - jr - h), p0, kc, &dst[h].even,
                             2 * NR);
          continue;
        }
        for (size_t q = 0; q < kc; ++q) {
          _mm256_store_ps(&dst[q * NR + h].even, _mm256_setzero_ps());
          _mm256_store_ps(&dst[q * NR + h].even + 8, _mm256_setzero_ps());
        }
      }
  }

  void kernel(size_t mr, size_t kc, const Pair* a, const Pair* b, float* c, size_t ldc,
              size_t nr, float /*alpha: 1*/, float beta) const {
    Micro::run(mr, kc, a, b, c, ldc, nr, beta == 0.0f);
  }
};

// Y[m][w.rows] = X · Wᵀ through gemm_blocking.h with Gemm's traits (a
// Bf16Gemm), DAZ and FTZ set for the duration (m >= 1, w.cols >= 1).
template <class Gemm>
void blocked_product(const WeightView& w, const float* X, size_t ldx, size_t m, float* Y,
                     size_t ldy) {
  const FlushDenormals flush;
  const size_t pairs = (w.cols + 1) / 2;
  const size_t units = (pairs + kChunkPairs - 1) / kChunkPairs * kChunkPairs;  // whole chunks
  const Gemm g{&w, X, ldx};
  gemm_blocked(g, m, w.rows, units, 1.0f, 0.0f, Y, ldy);
}

}  // namespace
}  // namespace amxqa::canonical_bf16
