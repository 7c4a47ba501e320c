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

// op(B)[k0 + i][c0 + j] for i < kc, j < nc into panel[i][j] (16 floats a row),
// zeros in columns nc..15. Rows of B are copied with vector loads (a 64-byte
// copy loop compiled to `rep movsq` was a quarter of this kernel's time).
void pack_panel(bool trans_b, const float* B, size_t ldb, size_t k0, size_t kc, size_t c0,
                size_t nc, float* panel) {
  const __m256i m0 = lanes8(nc), m1 = lanes8(nc > 8 ? nc - 8 : 0);
  for (size_t i = 0; i < kc; ++i) {
    float* row = panel + i * kNR;
    if (trans_b) break;  // below, 8 x 8 blocks at a time
    const float* src = B + (k0 + i) * ldb + c0;
    if (nc == kNR) {
      _mm256_store_ps(row, _mm256_loadu_ps(src));
      _mm256_store_ps(row + 8, _mm256_loadu_ps(src + 8));
    } else {
      _mm256_store_ps(row, _mm256_maskload_ps(src, m0));
      _mm256_store_ps(row + 8, _mm256_maskload_ps(src + 8, m1));
    }
  }
  if (!trans_b) return;
  // op(B) = Bᵀ: B's rows c0 + j are contiguous in the depth, so 8 rows x 8
  // depth steps are loaded (zeros past nc and kc) and transposed in registers.
  for (size_t j0 = 0; j0 < kNR; j0 += 8)
    for (size_t i0 = 0; i0 < kc; i0 += 8) {
      const __m256i mk = lanes8(kc - i0);
      __m256 r[8];
      for (size_t j = 0; j < 8; ++j)
        r[j] = j0 + j < nc ? _mm256_maskload_ps(B + (c0 + j0 + j) * ldb + k0 + i0, mk)
                           : _mm256_setzero_ps();
      transpose8x8(r);
      for (size_t i = 0; i < 8 && i0 + i < kc; ++i) _mm256_store_ps(panel + (i0 + i) * kNR + j0, r[i]);
    }
}

// Loads or stores one C row's two vectors: plain for a full panel (a masked
// store is microcoded and slow on AMD cores), masked for the last one.
struct RowIo {
  bool full;
  __m256i m0, m1;
  explicit RowIo(size_t nc)
      : full(nc == kNR), m0(lanes8(nc)), m1(lanes8(nc > 8 ? nc - 8 : 0)) {}
  void load(const float* c, __m256& x0, __m256& x1) const {
    x0 = full ? _mm256_loadu_ps(c) : _mm256_maskload_ps(c, m0);
    x1 = full ? _mm256_loadu_ps(c + 8) : _mm256_maskload_ps(c + 8, m1);
  }
  void store(float* c, __m256 x0, __m256 x1) const {
    if (full) {
      _mm256_storeu_ps(c, x0);
      _mm256_storeu_ps(c + 8, x1);
    } else {
      _mm256_maskstore_ps(c, m0, x0);
      _mm256_maskstore_ps(c + 8, m1, x1);
    }
  }
};

// mr (1..6) rows of A (from a, row stride lda) times the kc-deep panel into
// C's first nc columns. first: the sums start at +0, else from C; last: C
// gets alpha · sum, else the sum. The 12 accumulators are named variables,
// not an array, so that GCC keeps them in registers (with an array it also
// stores every one to the stack on each depth step); rows past mr repeat
// row mr−1 and are not stored.
void tile(const float* a, size_t lda, size_t mr, const float* panel, size_t kc, float* C,
          size_t ldc, size_t nc, bool first, bool last, float alpha) {
  const float* a0 = a;
  const float* a1 = a + (mr > 1 ? 1 : 0) * lda;
  const float* a2 = a + (mr > 2 ? 2 : mr - 1) * lda;
  const float* a3 = a + (mr > 3 ? 3 : mr - 1) * lda;
  const float* a4 = a + (mr > 4 ? 4 : mr - 1) * lda;
  const float* a5 = a + (mr > 5 ? 5 : mr - 1) * lda;
  __m256 c00, c01, c10, c11, c20, c21, c30, c31, c40, c41, c50, c51;
  c00 = c01 = c10 = c11 = c20 = c21 = c30 = c31 = c40 = c41 = c50 = c51 = _mm256_setzero_ps();
  const RowIo io(nc);
  if (!first) {
    io.load(C, c00, c01);
    if (mr > 1) io.load(C + ldc, c10, c11);
    if (mr > 2) io.load(C + 2 * ldc, c20, c21);
    if (mr > 3) io.load(C + 3 * ldc, c30, c31);
    if (mr > 4) io.load(C + 4 * ldc, c40, c41);
    if (mr > 5) io.load(C + 5 * ldc, c50, c51);
  }
  for (size_t i = 0; i < kc; ++i) {
    const __m256 b0 = _mm256_load_ps(panel + i * kNR), b1 = _mm256_load_ps(panel + i * kNR + 8);
    __m256 av = _mm256_broadcast_ss(a0 + i);
    c00 = _mm256_fmadd_ps(av, b0, c00), c01 = _mm256_fmadd_ps(av, b1, c01);
    av = _mm256_broadcast_ss(a1 + i);
    c10 = _mm256_fmadd_ps(av, b0, c10), c11 = _mm256_fmadd_ps(av, b1, c11);
    av = _mm256_broadcast_ss(a2 + i);
    c20 = _mm256_fmadd_ps(av, b0, c20), c21 = _mm256_fmadd_ps(av, b1, c21);
    av = _mm256_broadcast_ss(a3 + i);
    c30 = _mm256_fmadd_ps(av, b0, c30), c31 = _mm256_fmadd_ps(av, b1, c31);
    av = _mm256_broadcast_ss(a4 + i);
    c40 = _mm256_fmadd_ps(av, b0, c40), c41 = _mm256_fmadd_ps(av, b1, c41);
    av = _mm256_broadcast_ss(a5 + i);
    c50 = _mm256_fmadd_ps(av, b0, c50), c51 = _mm256_fmadd_ps(av, b1, c51);
  }
  const __m256 va = _mm256_set1_ps(last ? alpha : 1.0f);
  // alpha · sum when last; otherwise the sum itself (stored unscaled).
  auto out = [&](float* c, __m256 x0, __m256 x1) {
    if (last) x0 = _mm256_mul_ps(va, x0), x1 = _mm256_mul_ps(va, x1);
    io.store(c, x0, x1);
  };
  out(C, c00, c01);
  if (mr > 1) out(C + ldc, c10, c11);
  if (mr > 2) out(C + 2 * ldc, c20, c21);
  if (mr > 3) out(C + 3 * ldc, c30, c31);
  if (mr > 4) out(C + 4 * ldc, c40, c41);
  if (mr > 5) out(C + 5 * ldc, c50, c51);
}

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
        tile(A + r0 * lda + k0, lda, mr, panel, kc, C + r0 * ldc + c0, ldc, nc, first, last,
             alpha);
      }
    }
  }
}

}  // namespace amxqa
