// attend_gemm_avx2.cpp — kernels.h's attend_gemm on AVX2 + FMA.
//
// The canonical order sums each C element over the depth in sequence, so the
// lanes hold C's columns: 16 columns (two ymm) of op(B) are packed into a
// stack panel, zero-padded past n, KC depth steps at a time, and a 6-row
// micro-kernel broadcasts A and fuses one depth step per instruction into
// 12 accumulators. A depth chunk's sums are stored unscaled and reloaded for
// the next chunk (a store and a load do not round), and alpha multiplies once
// after the last, so the result is the scalar table's bit for bit.
#include "kernels/attend_gemm_avx2.h"

#include <immintrin.h>

namespace amxqa {
namespace {

constexpr size_t kMR = 6, kNR = 16, kKC = 256;

// op(B)[k0 + i][c0 + j] for i < kc, j < nc into panel[i][j] (16 floats a row),
// zeros in columns nc..15.
void pack_panel(bool trans_b, const float* B, size_t ldb, size_t k0, size_t kc, size_t c0,
                size_t nc, float* panel) {
  for (size_t i = 0; i < kc; ++i) {
    float* row = panel + i * kNR;
    if (trans_b) {
      for (size_t j = 0; j < nc; ++j) row[j] = B[(c0 + j) * ldb + k0 + i];
    } else {
      const float* src = B + (k0 + i) * ldb + c0;
      for (size_t j = 0; j < nc; ++j) row[j] = src[j];
    }
    for (size_t j = nc; j < kNR; ++j) row[j] = 0.0f;
  }
}

// Lane mask for the first n (0..8) floats of a ymm.
inline __m256i lanes8(size_t n) {
  const __m256i idx = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(n > 8 ? 8 : n)), idx);
}

// M rows of A (from a, row stride lda) times the kc-deep panel into C's
// first nc columns. first: the sums start at +0, else from C; last: C gets
// alpha · sum, else the sum.
template <int M>
void tile(const float* a, size_t lda, const float* panel, size_t kc, float* C, size_t ldc,
          size_t nc, bool first, bool last, float alpha) {
  const __m256i m0 = lanes8(nc), m1 = lanes8(nc > 8 ? nc - 8 : 0);
  __m256 acc[M][2];
  for (int r = 0; r < M; ++r) {
    acc[r][0] = first ? _mm256_setzero_ps() : _mm256_maskload_ps(C + r * ldc, m0);
    acc[r][1] = first ? _mm256_setzero_ps() : _mm256_maskload_ps(C + r * ldc + 8, m1);
  }
  for (size_t i = 0; i < kc; ++i) {
    const __m256 b0 = _mm256_load_ps(panel + i * kNR), b1 = _mm256_load_ps(panel + i * kNR + 8);
    for (int r = 0; r < M; ++r) {
      const __m256 av = _mm256_broadcast_ss(a + r * lda + i);
      acc[r][0] = _mm256_fmadd_ps(av, b0, acc[r][0]);
      acc[r][1] = _mm256_fmadd_ps(av, b1, acc[r][1]);
    }
  }
  const __m256 va = _mm256_set1_ps(alpha);
  for (int r = 0; r < M; ++r) {
    _mm256_maskstore_ps(C + r * ldc, m0, last ? _mm256_mul_ps(va, acc[r][0]) : acc[r][0]);
    _mm256_maskstore_ps(C + r * ldc + 8, m1, last ? _mm256_mul_ps(va, acc[r][1]) : acc[r][1]);
  }
}

using TileFn = void (*)(const float*, size_t, const float*, size_t, float*, size_t, size_t, bool,
                        bool, float);
constexpr TileFn kTiles[kMR + 1] = {nullptr, tile<1>, tile<2>, tile<3>, tile<4>, tile<5>, tile<6>};

}  // namespace

void attend_gemm_avx2(bool trans_b, size_t m, size_t n, size_t k, float alpha, const float* A,
                      size_t lda, const float* B, size_t ldb, float* C, size_t ldc) {
  alignas(32) float panel[kKC * kNR];
  for (size_t c0 = 0; c0 < n; c0 += kNR) {
    const size_t nc = n - c0 < kNR ? n - c0 : kNR;
    // k == 0 still takes one (empty) chunk: C = alpha · (+0), as in scalar.
    for (size_t k0 = 0; k0 == 0 || k0 < k; k0 += kKC) {
      const size_t kc = k - k0 < kKC ? k - k0 : kKC;
      pack_panel(trans_b, B, ldb, k0, kc, c0, nc, panel);
      const bool first = k0 == 0, last = k0 + kc >= k;
      for (size_t r0 = 0; r0 < m; r0 += kMR) {
        const size_t mr = m - r0 < kMR ? m - r0 : kMR;
        kTiles[mr](A + r0 * lda + k0, lda, panel, kc, C + r0 * ldc + c0, ldc, nc, first, last,
                   alpha);
      }
    }
  }
}

}  // namespace amxqa
