// canonical_i8_neon.h — canonical_i8.h on aarch64 NEON, for int8 weights in
// the vnni4 layout ([K/4][N][4]): the i8 matvec, matmul, rows_dot and
// matmul_shared of the two Arm tables. The product is a template over the
// 4-column dot step, so each table supplies its own:
// - Widening (kernels_neon.cpp, every aarch64 CPU): smull/smull2 multiply the
//   16 bytes of 4 outputs x 4 columns by the broadcast activations into int16
//   (|q · w| <= 127 · 128 < 2^15: exact) and sadalp adds each product pair
//   into int32; the pairs of each output are added once at the end.
// - SDOT (kernels_dotprod.cpp, Armv8.2-A dot product): one sdot adds the 4
//   products of each output into its int32 lane.
// Integer sums are exact in any order, so both give canonical_i8.h's bits.
// The activations are quantised (steps 1 and 2) and dequantised (step 4)
// with NEON lane operations that are the scalar steps lane for lane.
//
// Included only by the aarch64 table files; internal linkage, so each table
// gets its own copy compiled with its own flags (-march=...+dotprod).
#pragma once
#include <arm_neon.h>

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "kernels/canonical_i8.h"
#include "kernels/kernels.h"

namespace amxqa::canonical_i8 {
namespace {

constexpr size_t kNeonMaxCols = 4096;  // longest row quantised on the stack
constexpr size_t kNeonMR = 4;          // activation rows per block
constexpr size_t kNeonNR = 16;         // outputs per block (4 vectors of 4)

// Whether the NEON kernels take w; the tables give any other i8 matrix to
// the scalar oracle, which computes the same bits.
inline bool fits_neon(const WeightView& w) {
  return w.dtype == DType::i8 && w.layout == Layout::vnni4 && w.cols % 4 == 0 &&
         w.cols <= kNeonMaxCols && w.rows > 0;
}

// Step 1 (NaN never wins: fmaxnm keeps the number) and step 2 for one row:
// q[0..k) and the row's sx. k is a multiple of 4.
inline float quantize_row_neon(const float* x, size_t k, int8_t* q) {
  float32x4_t m = vdupq_n_f32(0.0f);
  size_t c = 0;
  for (; c + 4 <= k; c += 4) m = vmaxnmq_f32(m, vabsq_f32(vld1q_f32(x + c)));
  float amax = vmaxnmvq_f32(m);
  for (; c < k; ++c) {
    const float a = x[c] < 0.0f ? -x[c] : x[c];
    amax = a > amax ? a : amax;
  }
  const float sx = amax / 127.0f, inv = inverse(sx);
  const float32x4_t vinv = vdupq_n_f32(inv), lo = vdupq_n_f32(-127.0f), hi = vdupq_n_f32(127.0f);
  c = 0;
  for (; c + 8 <= k; c += 8) {
    int32x4_t r[2];
    for (int h = 0; h < 2; ++h) {
      float32x4_t v = vmulq_f32(vld1q_f32(x + c + 4 * h), vinv);
      v = vbslq_f32(vceqq_f32(v, v), v, vdupq_n_f32(0.0f));  // NaN (also inf · 0) → 0
      v = vminq_f32(vmaxq_f32(v, lo), hi);
      r[h] = vcvtnq_s32_f32(v);  // half to even
    }
    const int16x8_t s = vcombine_s16(vmovn_s32(r[0]), vmovn_s32(r[1]));
    vst1_s8(q + c, vmovn_s16(s));
  }
  for (; c < k; ++c) q[c] = quantize(x[c], inv);
  return sx;
}

// Step 4 for 4 outputs: sw · (sx · float(acc)).
inline void dequantize4(int32x4_t acc, float sx, const float* sw, float* y) {
  vst1q_f32(y, vmulq_f32(vld1q_f32(sw), vmulq_f32(vdupq_n_f32(sx), vcvtq_f32_s32(acc))));
}

// Exact int32 sum of one output over k columns (k a multiple of 4), for the
// rows past the last whole vector of 4.
inline int32_t dot_one(const WeightView& w, size_t r, const int8_t* q) {
  const int8_t* d = static_cast<const int8_t*>(w.data);
  uint32_t acc = 0;  // wraps as the oracle's does
  for (size_t g = 0; g < w.cols / 4; ++g)
    for (size_t t = 0; t < 4; ++t) acc += uint32_t(int32_t(q[4 * g + t]) * d[(g * w.rows + r) * 4 + t]);
  return int32_t(acc);
}

// The widening dot step (every aarch64 CPU): acc.lo holds outputs 0-1 and
// acc.hi outputs 2-3 of a 16-byte weight load, two int32 lanes each.
struct NeonWidening {
  struct Acc {
    int32x4_t lo, hi;
  };
  static Acc zero() { return {vdupq_n_s32(0), vdupq_n_s32(0)}; }
  static Acc step(Acc a, int8x16_t w, int8x16_t x) {
    return {vpadalq_s16(a.lo, vmull_s8(vget_low_s8(w), vget_low_s8(x))),
            vpadalq_s16(a.hi, vmull_high_s8(w, x))};
  }
  static int32x4_t sum(Acc a) { return vpaddq_s32(a.lo, a.hi); }
};

// The 4 activations of group g of a quantised row, in every 32-bit lane.
inline int8x16_t broadcast4(const int8_t* q) {
  int32_t v;
  std::memcpy(&v, q, sizeof v);
  return vreinterpretq_s8_s32(vdupq_n_s32(v));
}

// Y[i][r0 .. r0+4·NV) for MR quantised rows (Q row stride kNeonMaxCols)
// through Dot (the table's dot step: Acc, zero(), step(acc, w, x), sum(acc)).
template <class Dot, size_t MR, size_t NV>
void block(const WeightView& w, size_t r0, const int8_t* Q, const float* sx, float* Y, size_t ldy) {
  const int8_t* d = static_cast<const int8_t*>(w.data) + r0 * 4;
  typename Dot::Acc acc[MR][NV];
  for (size_t i = 0; i < MR; ++i)
    for (size_t v = 0; v < NV; ++v) acc[i][v] = Dot::zero();
  const size_t groups = w.cols / 4, stride = w.rows * 4;
  for (size_t g = 0; g < groups; ++g, d += stride) {
    int8x16_t wv[NV];
    for (size_t v = 0; v < NV; ++v) wv[v] = vld1q_s8(d + 16 * v);
    for (size_t i = 0; i < MR; ++i) {
      const int8x16_t xv = broadcast4(Q + i * kNeonMaxCols + 4 * g);
      for (size_t v = 0; v < NV; ++v) acc[i][v] = Dot::step(acc[i][v], wv[v], xv);
    }
  }
  for (size_t i = 0; i < MR; ++i)
    for (size_t v = 0; v < NV; ++v)
      dequantize4(Dot::sum(acc[i][v]), sx[i], w.scales + r0 + 4 * v, Y + i * ldy + r0 + 4 * v);
}

// All outputs of MR quantised rows.
template <class Dot, size_t MR>
void rows_block(const WeightView& w, const int8_t* Q, const float* sx, float* Y, size_t ldy) {
  size_t r0 = 0;
  for (; r0 + kNeonNR <= w.rows; r0 += kNeonNR) block<Dot, MR, kNeonNR / 4>(w, r0, Q, sx, Y, ldy);
  for (; r0 + 4 <= w.rows; r0 += 4) block<Dot, MR, 1>(w, r0, Q, sx, Y, ldy);
  for (; r0 < w.rows; ++r0)
    for (size_t i = 0; i < MR; ++i)
      Y[i * ldy + r0] = dequantize(dot_one(w, r0, Q + i * kNeonMaxCols), sx[i], w.scales[r0]);
}

// Y[m][w.rows] = X · Wᵀ for already quantised rows Q[m][kNeonMaxCols].
template <class Dot>
void product(const WeightView& w, const int8_t* Q, const float* sx, size_t m, float* Y, size_t ldy) {
  size_t i = 0;
  for (; i + kNeonMR <= m; i += kNeonMR)
    rows_block<Dot, kNeonMR>(w, Q + i * kNeonMaxCols, sx + i, Y + i * ldy, ldy);
  for (; i < m; ++i) rows_block<Dot, 1>(w, Q + i * kNeonMaxCols, sx + i, Y + i * ldy, ldy);
}

// kernels.h's matmul / matvec for fits_neon(w): kNeonMR rows quantised at a time.
template <class Dot>
void matmul_neon(const WeightView& w, const float* X, size_t ldx, size_t m, float* Y, size_t ldy) {
  alignas(16) int8_t Q[kNeonMR * kNeonMaxCols];
  float sx[kNeonMR];
  for (size_t i0 = 0; i0 < m; i0 += kNeonMR) {
    const size_t mr = m - i0 < kNeonMR ? m - i0 : kNeonMR;
    for (size_t i = 0; i < mr; ++i)
      sx[i] = quantize_row_neon(X + (i0 + i) * ldx, w.cols, Q + i * kNeonMaxCols);
    product<Dot>(w, Q, sx, mr, Y + i0 * ldy, ldy);
  }
}

// kernels.h's matmul_shared: the rows of X quantised once for every weight
// (all fits_neon, the same cols).
template <class Dot>
void matmul_shared_neon(const WeightView* ws, size_t n, const float* X, size_t ldx, size_t m,
                        float* const* Ys, const size_t* ldys) {
  alignas(16) int8_t Q[kNeonMR * kNeonMaxCols];
  float sx[kNeonMR];
  for (size_t i0 = 0; i0 < m; i0 += kNeonMR) {
    const size_t mr = m - i0 < kNeonMR ? m - i0 : kNeonMR;
    for (size_t i = 0; i < mr; ++i)
      sx[i] = quantize_row_neon(X + (i0 + i) * ldx, ws[0].cols, Q + i * kNeonMaxCols);
    for (size_t j = 0; j < n; ++j) product<Dot>(ws[j], Q, sx, mr, Ys[j] + i0 * ldys[j], ldys[j]);
  }
}

// kernels.h's rows_dot for fits_neon(w): the selected rows' 4-byte groups
// gathered 4 outputs at a time.
template <class Dot>
void rows_dot_neon(const WeightView& w, const uint32_t* ids, size_t n, const float* x, float* out) {
  alignas(16) int8_t q[kNeonMaxCols];
  const float sx = quantize_row_neon(x, w.cols, q);
  const uint32_t* d = static_cast<const uint32_t*>(w.data);  // one 4-byte group per (g, row)
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    typename Dot::Acc acc = Dot::zero();
    for (size_t g = 0; g < w.cols / 4; ++g) {
      const uint32_t* grp = d + g * w.rows;
      uint32_t lanes[4];
      for (size_t t = 0; t < 4; ++t) std::memcpy(&lanes[t], grp + ids[i + t], sizeof lanes[t]);
      acc = Dot::step(acc, vreinterpretq_s8_u32(vld1q_u32(lanes)), broadcast4(q + 4 * g));
    }
    const float sw[4] = {w.scales[ids[i]], w.scales[ids[i + 1]], w.scales[ids[i + 2]],
                         w.scales[ids[i + 3]]};
    dequantize4(Dot::sum(acc), sx, sw, out + i);
  }
  for (; i < n; ++i) out[i] = dequantize(dot_one(w, ids[i], q), sx, w.scales[ids[i]]);
}

}  // namespace
}  // namespace amxqa::canonical_i8
