// canonical_i8.h — the one definition of a product with int8 weights,
// y[n] = W[n] · x, that every kernel table computes bit for bit.
//
// int8 products are integer sums, which are exact whatever their order, so
// every ISA can run them at its full rate and still give the same bits:
// AMX-INT8 tiles (TDPBSSD), AVX-512 VNNI (vpdpbusd), AVX2 (vpmaddwd, or
// vpmaddubsw when a matrix's weights are 7-bit: WeightView::bits) and the
// scalar oracle. The definition is the tiles' (amx/amx_gemm_impl.h):
//   1. Each activation row x[0..K) gets one scale: amax = the largest |x[c]|
//      (a NaN never wins), sx = amax / 127, inv = 1 / sx when sx > 0, else 0.
//   2. q[c] = x[c] · inv, a NaN made 0, clamped to [-127, 127], rounded half
//      to even: an int8. (Default MXCSR: no flushing of denormals here.)
//   3. acc = Σ_c q[c] · w[n][c] in int32, exact (|acc| <= K · 127 · 128, so K
//      up to 130,000 columns).
//   4. y[n] = scale_w[n] · (sx · float(acc)), two fp32 products rounded to
//      nearest even (float(acc) is exact below 2^24).
// The weights are the model's int8 values with one f32 scale per row
// (kernels.h WeightView), in the vnni4 layout ([K/4][N][4], which is both the
// AMX B tile and the VNNI operand) or plain row-major (run by the scalar
// oracle on every table: exact, not fast).
#pragma once
#include <cmath>
#include <cstddef>
#include <cstdint>

#include "kernels/kernels.h"

namespace amxqa::canonical_i8 {

// Step 1: the row's scale sx.
static inline float row_scale(const float* x, size_t k) {
  float amax = 0.0f;
  for (size_t c = 0; c < k; ++c) {
    const float a = std::fabs(x[c]);
    amax = a > amax ? a : amax;  // NaN never wins
  }
  return amax / 127.0f;
}

// Step 1: the multiplier of step 2.
static inline float inverse(float sx) { return sx > 0.0f ? 1.0f / sx : 0.0f; }

// Step 2 for one activation.
static inline int8_t quantize(float v, float inv) {
  float q = v * inv;
  if (q != q) q = 0.0f;  // NaN (also inf · 0)
  q = q < -127.0f ? -127.0f : (q > 127.0f ? 127.0f : q);
  return static_cast<int8_t>(static_cast<int32_t>(std::nearbyint(q)));  // half to even
}

// Step 4.
static inline float dequantize(int32_t acc, float sx, float sw) {
  return sw * (sx * static_cast<float>(acc));
}

// Weight (r, c) of an int8 matrix in either layout.
static inline int8_t weight(const WeightView& w, size_t r, size_t c) {
  const int8_t* d = static_cast<const int8_t*>(w.data);
  return w.layout == Layout::vnni4 ? d[((c / 4) * w.rows + r) * 4 + (c & 3)] : d[r * w.cols + c];
}

}  // namespace amxqa::canonical_i8
