// attend_gemm_avx512.cpp — kernels.h's attend_gemm with zmm lanes over C's
// columns: the AVX2 kernel's scheme (attend_gemm_avx2.cpp) at twice the width.
// 32 columns (two zmm) of op(B) a panel (attend_gemm_blocks.h), so a 32-wide
// head's probs × values product is one panel, and a 6-row micro-kernel fuses
// one depth step per instruction into 12 accumulators. Each C element is
// still summed over the depth in sequence, stored unscaled between depth
// chunks and multiplied by alpha once at the end: the scalar table's bits.
#include "kernels/attend_gemm_avx512.h"

#include <immintrin.h>

#include "kernels/attend_gemm_blocks.h"
#include "kernels/attend_gemm_pack_x86.h"

namespace amxqa {
namespace {

inline __mmask16 lanes16(size_t n) {
  return n >= 16 ? __mmask16(0xffff) : static_cast<__mmask16>((1u << n) - 1u);
}

// attend_gemm_blocks.h's vector traits: zmm.
struct Zmm {
  using Vec = __m512;
  static constexpr size_t kWidth = 16;
  static Vec zero() { return _mm512_setzero_ps(); }
  static Vec set1(float v) { return _mm512_set1_ps(v); }
  static Vec load(const float* p) { return _mm512_load_ps(p); }
  static Vec fmadd(Vec a, Vec b, Vec c) { return _mm512_fmadd_ps(a, b, c); }
  static Vec mul(Vec a, Vec b) { return _mm512_mul_ps(a, b); }
  static void pack(bool trans_b, const float* B, size_t ldb, size_t k0, size_t kc, size_t c0,
                   size_t nc, float* panel) {
    pack_panel<2 * kWidth>(trans_b, B, ldb, k0, kc, c0, nc, panel);
  }
  // One C row's two vectors, masked to the panel's nc columns.
  struct Io {
    __mmask16 m0, m1;
    explicit Io(size_t nc) : m0(lanes16(nc)), m1(lanes16(nc > 16 ? nc - 16 : 0)) {}
    void load(const float* c, Vec& x0, Vec& x1) const {
      x0 = _mm512_maskz_loadu_ps(m0, c);
      x1 = _mm512_maskz_loadu_ps(m1, c + 16);
    }
    void store(float* c, Vec x0, Vec x1) const {
      _mm512_mask_storeu_ps(c, m0, x0);
      _mm512_mask_storeu_ps(c + 16, m1, x1);
    }
  };
};

}  // namespace

void attend_gemm_avx512(bool trans_b, size_t m, size_t n, size_t k, float alpha, const float* A,
                        size_t lda, const float* B, size_t ldb, float* C, size_t ldc,
                        size_t causal) {
  attend_blocks<Zmm>(trans_b, m, n, k, alpha, A, lda, B, ldb, C, ldc, causal);
}

}  // namespace amxqa
