// attend_gemm_blocks.h — what the AVX2 and AVX-512 attend_gemm kernels
// share (attend_gemm_avx2.cpp, attend_gemm_avx512.cpp): op(B) packed into
// stack panels of NR columns, zero-padded past n, KC depth steps at a time,
// the 6-row micro-kernel and the loop nest over panels, depth chunks and
// tiles. Each file supplies its vector traits. Included only by *_avx2.cpp
// and *_avx512.cpp files; internal linkage, so each gets its own copy
// compiled with its own flags.
#pragma once
#include <immintrin.h>

#include <cstddef>

#include "kernels/kernels.h"

namespace amxqa {
namespace {

constexpr size_t kAttendMR = 6, kAttendKC = 256;

// Lane mask for the first n (0..8) floats of a ymm.
inline __m256i lanes8(size_t n) {
  const __m256i idx = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(n > 8 ? 8 : n)), idx);
}

// In-place transpose of 8 x 8 floats: r[i] lane j becomes r[j] lane i.
inline void transpose8x8(__m256 r[8]) {
  __m256 t[8], u[8];
  for (int i = 0; i < 4; ++i) {
    t[2 * i] = _mm256_unpacklo_ps(r[2 * i], r[2 * i + 1]);
    t[2 * i + 1] = _mm256_unpackhi_ps(r[2 * i], r[2 * i + 1]);
  }
  for (int i = 0; i < 2; ++i) {
    u[4 * i + 0] = _mm256_shuffle_ps(t[4 * i], t[4 * i + 2], 0x44);
    u[4 * i + 1] = _mm256_shuffle_ps(t[4 * i], t[4 * i + 2], 0xee);
    u[4 * i + 2] = _mm256_shuffle_ps(t[4 * i + 1], t[4 * i + 3], 0x44);
    u[4 * i + 3] = _mm256_shuffle_ps(t[4 * i + 1], t[4 * i + 3], 0xee);
  }
  for (int i = 0; i < 4; ++i) {
    r[i] = _mm256_permute2f128_ps(u[i], u[i + 4], 0x20);
    r[i + 4] = _mm256_permute2f128_ps(u[i], u[i + 4], 0x31);
  }
}

// op(B)[k0 + i][c0 + j] for i < kc, j < nc into panel[i][j] (NR floats a row,
// NR a multiple of 8), zeros in columns nc..NR-1. Rows of B are copied with
// vector loads (a 64-byte copy loop compiled to `rep movsq` was a quarter of
// the AVX2 kernel's time).
template <size_t NR>
void pack_panel(bool trans_b, const float* B, size_t ldb, size_t k0, size_t kc, size_t c0,
                size_t nc, float* panel) {
  static_assert(NR % 8 == 0, "panels are whole ymm");
  if (!trans_b) {
    for (size_t i = 0; i < kc; ++i) {
      float* row = panel + i * NR;
      const float* src = B + (k0 + i) * ldb + c0;
      for (size_t j = 0; j < NR; j += 8) {
        if (j + 8 <= nc)
          _mm256_store_ps(row + j, _mm256_loadu_ps(src + j));
        else
          _mm256_store_ps(row + j, _mm256_maskload_ps(src + j, lanes8(nc > j ? nc - j : 0)));
      }
    }
    return;
  }
  // op(B) = Bᵀ: B's rows c0 + j are contiguous in the depth, so 8 rows x 8
  // depth steps are loaded (zeros past nc and kc) and transposed in registers.
  for (size_t j0 = 0; j0 < NR; j0 += 8)
    for (size_t i0 = 0; i0 < kc; i0 += 8) {
      const __m256i mk = lanes8(kc - i0);
      __m256 r[8];
      for (size_t j = 0; j < 8; ++j)
        r[j] = j0 + j < nc ? _mm256_maskload_ps(B + (c0 + j0 + j) * ldb + k0 + i0, mk)
                           : _mm256_setzero_ps();
      transpose8x8(r);
      for (size_t i = 0; i < 8 && i0 + i < kc; ++i) _mm256_store_ps(panel + (i0 + i) * NR + j0, r[i]);
    }
}

// mr (1..6) rows of A (from a, row stride lda) times the first kc steps of
// the panel into C's first nc columns, with two vectors of V (the file's
// traits: V, kWidth, zero, set1, load, fmadd, mul, and Io for a C row's loads
// and stores) per row. first: the sums start at +0, else from C; last: C gets
// alpha · sum, else the sum (stored unscaled: a store and a load do not
// round). The 12 accumulators are named variables, not an array, so that GCC
// keeps them in registers (with an array it also stores every one to the
// stack on each depth step; inlined into the loop nest, GCC 12 also spilled
// three of the zmm ones, hence noinline); rows past mr repeat row mr−1 and
// are not stored.
template <class V>
__attribute__((noinline)) void tile(const float* a, size_t lda, size_t mr, const float* panel, size_t kc, float* C,
          size_t ldc, size_t nc, bool first, bool last, float alpha) {
  constexpr size_t NR = 2 * V::kWidth;
  const float* a0 = a;
  const float* a1 = a + (mr > 1 ? 1 : 0) * lda;
  const float* a2 = a + (mr > 2 ? 2 : mr - 1) * lda;
  const float* a3 = a + (mr > 3 ? 3 : mr - 1) * lda;
  const float* a4 = a + (mr > 4 ? 4 : mr - 1) * lda;
  const float* a5 = a + (mr > 5 ? 5 : mr - 1) * lda;
  typename V::Vec c00, c01, c10, c11, c20, c21, c30, c31, c40, c41, c50, c51;
  c00 = c01 = c10 = c11 = c20 = c21 = c30 = c31 = c40 = c41 = c50 = c51 = V::zero();
  const typename V::Io io(nc);
  if (!first) {
    io.load(C, c00, c01);
    if (mr > 1) io.load(C + ldc, c10, c11);
    if (mr > 2) io.load(C + 2 * ldc, c20, c21);
    if (mr > 3) io.load(C + 3 * ldc, c30, c31);
    if (mr > 4) io.load(C + 4 * ldc, c40, c41);
    if (mr > 5) io.load(C + 5 * ldc, c50, c51);
  }
  for (size_t i = 0; i < kc; ++i) {
    const typename V::Vec b0 = V::load(panel + i * NR), b1 = V::load(panel + i * NR + V::kWidth);
    typename V::Vec av = V::set1(a0[i]);
    c00 = V::fmadd(av, b0, c00), c01 = V::fmadd(av, b1, c01);
    av = V::set1(a1[i]);
    c10 = V::fmadd(av, b0, c10), c11 = V::fmadd(av, b1, c11);
    av = V::set1(a2[i]);
    c20 = V::fmadd(av, b0, c20), c21 = V::fmadd(av, b1, c21);
    av = V::set1(a3[i]);
    c30 = V::fmadd(av, b0, c30), c31 = V::fmadd(av, b1, c31);
    av = V::set1(a4[i]);
    c40 = V::fmadd(av, b0, c40), c41 = V::fmadd(av, b1, c41);
    av = V::set1(a5[i]);
    c50 = V::fmadd(av, b0, c50), c51 = V::fmadd(av, b1, c51);
  }
  const typename V::Vec va = V::set1(last ? alpha : 1.0f);
  auto out = [&](float* c, typename V::Vec x0, typename V::Vec x1) {
    if (last) x0 = V::mul(va, x0), x1 = V::mul(va, x1);
    io.store(c, x0, x1);
  };
  out(C, c00, c01);
  if (mr > 1) out(C + ldc, c10, c11);
  if (mr > 2) out(C + 2 * ldc, c20, c21);
  if (mr > 3) out(C + 3 * ldc, c30, c31);
  if (mr > 4) out(C + 4 * ldc, c40, c41);
  if (mr > 5) out(C + 5 * ldc, c50, c51);
}

// The causal mask's staircase after tile(): row r (< mr) continues its sums
// (in C, unscaled) over panel steps steps[0] .. steps[r]−1, and gets alpha ·
// sum when last. One row at a time: at most mr − 1 steps per row.
template <class V>
void staircase(const float* a, size_t lda, size_t mr, const float* panel, const size_t* steps,
               float* C, size_t ldc, size_t nc, bool last, float alpha) {
  constexpr size_t NR = 2 * V::kWidth;
  const typename V::Io io(nc);
  for (size_t r = 0; r < mr; ++r) {
    if (!last && steps[r] == steps[0]) continue;
    typename V::Vec x0, x1;
    io.load(C + r * ldc, x0, x1);
    for (size_t i = steps[0]; i < steps[r]; ++i) {
      const typename V::Vec av = V::set1(a[r * lda + i]);
      x0 = V::fmadd(av, V::load(panel + i * NR), x0);
      x1 = V::fmadd(av, V::load(panel + i * NR + V::kWidth), x1);
    }
    if (last) x0 = V::mul(V::set1(alpha), x0), x1 = V::mul(V::set1(alpha), x1);
    io.store(C + r * ldc, x0, x1);
  }
}

// kernels.h's attend_gemm on panels of two V vectors' columns. Under the
// causal mask, score panels that none of a tile's rows sees are skipped (a
// tile may write scores past a row's limit: kernels.h leaves them open), and
// the output's depth stops at the last row's limit, each row at its own.
template <class V>
void attend_blocks(bool trans_b, size_t m, size_t n, size_t k, float alpha, const float* A,
                   size_t lda, const float* B, size_t ldb, float* C, size_t ldc, size_t causal) {
  constexpr size_t NR = 2 * V::kWidth;
  alignas(64) float panel[kAttendKC * NR];
  const size_t cols = trans_b ? causal_limit(causal, m - 1, n) : n;
  const size_t depth = trans_b ? k : causal_limit(causal, m - 1, k);
  for (size_t c0 = 0; c0 < cols; c0 += NR) {
    const size_t nc = n - c0 < NR ? n - c0 : NR;
    // depth == 0 still takes one (empty) chunk: C = alpha · (+0), as in scalar.
    for (size_t k0 = 0; k0 == 0 || k0 < depth; k0 += kAttendKC) {
      const size_t kc = depth - k0 < kAttendKC ? depth - k0 : kAttendKC;
      pack_panel<NR>(trans_b, B, ldb, k0, kc, c0, nc, panel);
      const bool first = k0 == 0, last = k0 + kc >= depth;
      for (size_t r0 = 0; r0 < m; r0 += kAttendMR) {
        const size_t mr = m - r0 < kAttendMR ? m - r0 : kAttendMR;
        if (trans_b && c0 >= causal_limit(causal, r0 + mr - 1, n)) continue;  // no row sees it
        size_t steps[kAttendMR] = {};
        for (size_t r = 0; r < mr; ++r) {
          const size_t lim = trans_b ? k : causal_limit(causal, r0 + r, k);
          steps[r] = lim <= k0 ? 0 : (lim - k0 < kc ? lim - k0 : kc);
        }
        // Every row's common steps at full rate; the rows that see more keys
        // finish theirs one at a time.
        const bool stair = steps[mr - 1] > steps[0];
        tile<V>(A + r0 * lda + k0, lda, mr, panel, steps[0], C + r0 * ldc + c0, ldc, nc, first,
                last && !stair, alpha);
        if (stair)
          staircase<V>(A + r0 * lda + k0, lda, mr, panel, steps, C + r0 * ldc + c0, ldc, nc, last,
                       alpha);
      }
    }
  }
}

}  // namespace
}  // namespace amxqa
