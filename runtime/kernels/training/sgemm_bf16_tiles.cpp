// sgemm_bf16_tiles.cpp — the trainer's mixed-precision sgemm on AMX tiles
// (see sgemm_bf16.h). The tile table computes Y = X · Wᵀ with plain bf16
// weights W [n][k]; the trainer's product C = alpha·op(A)·op(B) + beta·C is
// that with W = op(B)ᵀ rounded to bf16 and X = op(A). The trainer's weights
// change every step, so the conversion is per call; it costs O(n·k) against
// the product's O(m·n·k). Scratch is per thread and grows only: this is
// trainer code, where allocation is allowed.
#include <vector>

#include "kernels/training/sgemm_bf16.h"

namespace amxqa {

bool sgemm_bf16_tiles(const Kernels* tiles, bool trans_a, bool trans_b, size_t m, size_t n,
                      size_t k, float alpha, const float* A, size_t lda, const float* B,
                      size_t ldb, float beta, float* C, size_t ldc) {
  if (!tiles || m == 0 || n == 0 || k == 0) return false;
  // The tiles take bf16 pairs, so an odd k gets one zero column on both sides.
  const size_t k2 = k + (k & 1);
  thread_local std::vector<uint16_t> w;
  thread_local std::vector<float> x, y;
  w.resize(n * k2);
  for (size_t j = 0; j < n; ++j) {
    uint16_t* row = w.data() + j * k2;
    for (size_t p = 0; p < k; ++p) row[p] = f32_to_bf16(trans_b ? B[j * ldb + p] : B[p * ldb + j]);
    if (k2 != k) row[k] = 0;
  }
  const float* X = A;
  size_t ldx = lda;
  if (trans_a || k2 != k) {
    x.resize(m * k2);
    for (size_t i = 0; i < m; ++i) {
      float* row = x.data() + i * k2;
      for (size_t p = 0; p < k; ++p) row[p] = trans_a ? A[p * lda + i] : A[i * lda + p];
      if (k2 != k) row[k] = 0.0f;
    }
    X = x.data();
    ldx = k2;
  }
  y.resize(m * n);
  WeightView wv;
  wv.dtype = DType::bf16;
  wv.layout = Layout::plain;
  wv.rows = static_cast<uint32_t>(n);
  wv.cols = static_cast<uint32_t>(k2);
  wv.data = w.data();
  tiles->matmul(wv, X, ldx, m, y.data(), n);
  for (size_t i = 0; i < m; ++i)
    for (size_t j = 0; j < n; ++j) {
      float& c = C[i * ldc + j];
      // beta == 0 overwrites: C may hold garbage, even NaN.
      c = beta == 0.0f ? alpha * y[i * n + j] : alpha * y[i * n + j] + beta * c;
    }
  return true;
}

}  // namespace amxqa
