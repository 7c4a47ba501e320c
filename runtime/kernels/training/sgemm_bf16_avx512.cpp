// sgemm_bf16_avx512.cpp — the trainer's bf16 compute mode (the paper's
// "bf16 compute, fp32 master weights"): op(A)·op(B) with both operands
// rounded to bf16 (RNE) while packed and multiplied by vdpbf16ps into f32
// accumulators, at twice the f32 core's products per instruction.
//
// Not part of libamxqa: the shipped library never multiplies two f32
// matrices in bf16. It lives in amxqa_training_kernels, which the trainer,
// its tests and the bench link, and it reuses the shipped table's
// micro-kernels through avx512_gemm_core.h, so the code is written once.
#include "kernels/training/sgemm_bf16.h"

#include <immintrin.h>

#include "kernels/avx512_gemm_core.h"
#include "kernels/gemm_blocking.h"

namespace amxqa {
namespace {

// op(A)·op(B) for mixed-precision training, any transposes: both operands
// are rounded to bf16 (RNE) while packed, products accumulate in f32 through
// the vdpbf16ps core. k units are pairs (k, k+1); an odd last k pairs with 0.
struct Bf16SGemm : Bf16PairCore {
  const float* A;
  size_t lda;
  bool trans_a;
  const float* B;
  size_t ldb;
  bool trans_b;
  size_t k;  // in floats

  // k-values left from pair index p (in floats, 0..32 of interest).
  size_t left(size_t p) const { return 2 * p < k ? k - 2 * p : 0; }

  const uint32_t* pack_a(size_t i0, size_t mr, size_t p0, size_t kc, uint32_t* dst) const {
    if (!trans_a) {  // row i is contiguous in k
      for (size_t i = 0; i < mr; ++i) {
        const float* src = A + (i0 + i) * lda;
        for (size_t p = 0; p < kc; p += 16) {
          const size_t np = kc - p < 16 ? kc - p : 16;
          _mm512_mask_storeu_epi32(dst + i * kKC + p, lanes(np),
                                   row_pairs(src + 2 * (p0 + p), left(p0 + p)));
        }
      }
      return dst;
    }
    // Aᵀ: row kk holds the m values of step kk; pair two rows, then
    // transpose 16 pairs × 16 rows of A into [i][p].
    const __mmask16 mm = lanes(mr);
    for (size_t p = 0; p < kc; p += 16) {
      const size_t np = kc - p < 16 ? kc - p : 16;
      __m512 r[16];
      for (size_t q = 0; q < 16; ++q) {
        const size_t kk = 2 * (p0 + p + q);
        const __m512 x0 = q < np && kk < k ? _mm512_maskz_loadu_ps(mm, A + kk * lda + i0)
                                           : _mm512_setzero_ps();
        const __m512 x1 = q < np && kk + 1 < k
                              ? _mm512_maskz_loadu_ps(mm, A + (kk + 1) * lda + i0)
                              : _mm512_setzero_ps();
        r[q] = _mm512_castsi512_ps(pair_up(x0, x1));
      }
      transpose16(r);
      for (size_t i = 0; i < mr; ++i)
        _mm512_mask_storeu_ps(reinterpret_cast<float*>(dst + i * kKC + p), lanes(np), r[i]);
    }
    return dst;
  }

  void pack_b(size_t j0, size_t nc, size_t p0, size_t kc, uint32_t* dst) const {
    // The scratch holds 32-bit lanes read as bf16 pairs by the kernel.
    // cppcheck-suppress invalidPointerCast
    float* fdst = reinterpret_cast<float*>(dst);
    if (trans_b) {  // Bᵀ: row j of the stored matrix is column j of op(B), contiguous in k
      return pack_rows_transposed(nc, kc, fdst, [&](size_t j, size_t p, size_t) {
        return _mm512_castsi512_ps(
            row_pairs(B + (j0 + j) * ldb + 2 * (p0 + p), left(p0 + p)));
      });
    }
    for (size_t jr = 0; jr < nc; jr += kNR, dst += kc * kNR) {
      const size_t nr = nc - jr < kNR ? nc - jr : kNR;
      const __mmask16 m0 = lanes(nr), m1 = lanes(nr > 16 ? nr - 16 : 0);
      for (size_t p = 0; p < kc; ++p) {
        const size_t kk = 2 * (p0 + p);
        const float* r0 = B + kk * ldb + j0 + jr;
        const bool odd_end = kk + 1 >= k;
        const float* r1 = r0 + ldb;
        const __m512 a0 = _mm512_maskz_loadu_ps(m0, r0), a1 = _mm512_maskz_loadu_ps(m1, r0 + 16);
        const __m512 b0 = odd_end ? _mm512_setzero_ps() : _mm512_maskz_loadu_ps(m0, r1);
        const __m512 b1 = odd_end ? _mm512_setzero_ps() : _mm512_maskz_loadu_ps(m1, r1 + 16);
        _mm512_store_si512(dst + p * kNR, pair_up(a0, b0));
        _mm512_store_si512(dst + p * kNR + 16, pair_up(a1, b1));
      }
    }
  }
};

}  // namespace

bool sgemm_bf16_avx512(bool trans_a, bool trans_b, size_t m, size_t n, size_t k, float alpha,
                       const float* A, size_t lda, const float* B, size_t ldb, float beta,
                       float* C, size_t ldc) {
  if (!cpu_has_bf16()) return false;
  if (m == 0 || n == 0) return true;
  if (k == 0) {
    gemm_scale_only(m, n, beta, C, ldc);
    return true;
  }
  const Bf16SGemm g{{}, A, lda, trans_a, B, ldb, trans_b, k};
  gemm_blocked(g, m, n, (k + 1) / 2, alpha, beta, C, ldc);
  return true;
}

}  // namespace amxqa
