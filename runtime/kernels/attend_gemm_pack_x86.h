// attend_gemm_pack_x86.h — the panel packing of the x86 attend_gemm
// kernels (attend_gemm_avx2.cpp, attend_gemm_avx512.cpp: their traits' pack,
// attend_gemm_blocks.h). Included only by *_avx2.cpp and *_avx512.cpp files;
// internal linkage, so each gets its own copy compiled with its own flags.
#pragma once
#include <immintrin.h>

#include <cstddef>

namespace amxqa {
namespace {

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

}  // namespace
}  // namespace amxqa
