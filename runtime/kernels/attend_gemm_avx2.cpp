// attend_gemm_avx2.cpp — kernels.h's attend_gemm on AVX2 + FMA.
//
// The canonical order sums each C element over the depth in sequence, so the
// lanes hold C's columns: 16 columns (two ymm) of op(B) are packed into a
// stack panel (attend_gemm_blocks.h), and a 6-row micro-kernel broadcasts A
// and fuses one depth step per instruction into 12 accumulators. A depth
// chunk's sums are stored unscaled and reloaded for the next chunk (a store
// and a load do not round), and alpha multiplies once after the last, so the
// result is the scalar table's bit for bit.
#include "kernels/attend_gemm_avx2.h"

#include <immintrin.h>

#include "kernels/attend_gemm_blocks.h"
#include "kernels/attend_gemm_pack_x86.h"

namespace amxqa {
namespace {

// attend_gemm_blocks.h's vector traits: ymm.
struct Ymm {
  using Vec = __m256;
  static constexpr size_t kWidth = 8;
  static Vec zero() { return _mm256_setzero_ps(); }
  static Vec set1(float v) { return _mm256_set1_ps(v); }
  static Vec load(const float* p) { return _mm256_load_ps(p); }
  static Vec fmadd(Vec a, Vec b, Vec c) { return _mm256_fmadd_ps(a, b, c); }
  static Vec mul(Vec a, Vec b) { return _mm256_mul_ps(a, b); }
  static void pack(bool trans_b, const float* B, size_t ldb, size_t k0, size_t kc, size_t c0,
                   size_t nc, float* panel) {
    pack_panel<2 * kWidth>(trans_b, B, ldb, k0, kc, c0, nc, panel);
  }
  // One C row's two vectors: plain for a full panel (a masked store is
  // microcoded and slow on AMD cores), masked for the last one.
  struct Io {
    bool full;
    __m256i m0, m1;
    explicit Io(size_t nc) : full(nc == 2 * kWidth), m0(lanes8(nc)), m1(lanes8(nc > 8 ? nc - 8 : 0)) {}
    void load(const float* c, Vec& x0, Vec& x1) const {
      x0 = full ? _mm256_loadu_ps(c) : _mm256_maskload_ps(c, m0);
      x1 = full ? _mm256_loadu_ps(c + 8) : _mm256_maskload_ps(c + 8, m1);
    }
    void store(float* c, Vec x0, Vec x1) const {
      if (full) {
        _mm256_storeu_ps(c, x0);
        _mm256_storeu_ps(c + 8, x1);
      } else {
        _mm256_maskstore_ps(c, m0, x0);
        _mm256_maskstore_ps(c + 8, m1, x1);
      }
    }
  };
};

}  // namespace

void attend_gemm_avx2(bool trans_b, size_t m, size_t n, size_t k, float alpha, const float* A,
                      size_t lda, const float* B, size_t ldb, float* C, size_t ldc,
                      size_t causal) {
  attend_blocks<Ymm>(trans_b, m, n, k, alpha, A, lda, B, ldb, C, ldc, causal);
}

}  // namespace amxqa
