// tile_pack_avx512.cpp — the tile product's operand packers (sgemm_bf16.h):
// f32 to bf16 pairs along k, 16 x 16 blocks of pairs at a time. A source
// runs either along k (a row holds consecutive k: row_pairs converts 32
// values into 16 pairs) or across it (a row holds one k for many columns:
// pair_up interleaves rows k and k+1). The block comes out of the registers
// in the source's order, [column][pair] or [pair][column]; when the operand
// wants the other order, one in-register transpose16 turns it. So the
// backward's transposed operands (dYᵀ for dW, Wᵀ for the forward) cost a
// shuffle network, never a scalar transpose.
#include <immintrin.h>

#include "kernels/avx512_gemm_core.h"
#include "kernels/training/sgemm_bf16.h"

namespace amxqa {
namespace {

// Packs the pairs of `cols` columns × k values: column c's value kk is at
// src[c * ld + kk] (along_k) or src[kk * ld + c]. Writes dst as
// [tile_pairs(k)][tile_rows(cols)] (pairs_major) or [tile_rows(cols)][tile_pairs(k)].
void pack_pairs(const float* src, size_t ld, bool along_k, size_t cols, size_t k,
                bool pairs_major, uint32_t* dst) {
  const size_t cols_pad = tile_rows(cols), pairs_pad = tile_pairs(k);
  const size_t pairs = (k + 1) / 2;
  // The registers hold [column][pair] when along_k, else [pair][column].
  const bool transpose = along_k == pairs_major;
  for (size_t c0 = 0; c0 < cols_pad; c0 += 16) {
    const size_t nc = c0 < cols ? (cols - c0 < 16 ? cols - c0 : 16) : 0;
    for (size_t p0 = 0; p0 < pairs_pad; p0 += 16) {
      const size_t np = p0 < pairs ? (pairs - p0 < 16 ? pairs - p0 : 16) : 0;
      __m512 r[16];
      if (along_k) {
        const size_t left = 2 * p0 < k ? k - 2 * p0 : 0;
        for (size_t i = 0; i < 16; ++i)
          r[i] = i < nc && left ? _mm512_castsi512_ps(row_pairs(src + (c0 + i) * ld + 2 * p0, left))
                                : _mm512_setzero_ps();
      } else {
        const __mmask16 mc = lanes(nc);
        for (size_t q = 0; q < 16; ++q) {
          const size_t kk = 2 * (p0 + q);
          if (q >= np || nc == 0) {
            r[q] = _mm512_setzero_ps();
            continue;
          }
          const __m512 x0 = _mm512_maskz_loadu_ps(mc, src + kk * ld + c0);
          const __m512 x1 =
              kk + 1 < k ? _mm512_maskz_loadu_ps(mc, src + (kk + 1) * ld + c0) : _mm512_setzero_ps();
          r[q] = _mm512_castsi512_ps(pair_up(x0, x1));
        }
      }
      if (transpose) transpose16(r);
      // Now r[t] is row t of the destination block.
      float* out = reinterpret_cast<float*>(dst);
      for (size_t t = 0; t < 16; ++t) {
        float* row = pairs_major ? out + (p0 + t) * cols_pad + c0 : out + (c0 + t) * pairs_pad + p0;
        _mm512_storeu_ps(row, r[t]);
      }
    }
  }
}

}  // namespace

bool pack_tile_a(bool trans_a, size_t m, size_t k, const float* A, size_t lda, uint32_t* dst) {
  if (!cpu_has_bf16()) return false;
  pack_pairs(A, lda, !trans_a, m, k, false, dst);
  return true;
}

bool pack_tile_b(bool trans_b, size_t k, size_t n, const float* B, size_t ldb, uint32_t* dst) {
  if (!cpu_has_bf16()) return false;
  pack_pairs(B, ldb, trans_b, n, k, true, dst);
  return true;
}

}  // namespace amxqa
