// kernels_neon.cpp — the aarch64 Advanced SIMD table ("neon", AMXQA_ISA_NEON),
// every aarch64 CPU: bf16 weights (plain or vnni2) by canonical_bf16.h, vnni4
// int8 weights by canonical_i8.h (canonical_i8_neon.h, widening multiplies),
// attention's products, the pointer scores and softmax in kernels.h's
// canonical orders, so that every answer is the x86 tables' bytes. f32
// weights and sgemm (the trainer's, f32 models: outside the promise) and any
// other layout go to the scalar oracle. kernels_dotprod.cpp is this table
// with the int8 product on SDOT. NEON.md says how each kernel keeps the bits.
#include <arm_neon.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <initializer_list>

#include "kernels/attend_gemm_blocks.h"
#include "kernels/canonical_bf16.h"
#include "kernels/canonical_exp.h"
#include "kernels/canonical_i8_neon.h"
#include "kernels/kernels.h"

namespace amxqa {
namespace {

namespace cb = canonical_bf16;

// ---- canonical_bf16.h ------------------------------------------------------
//
// Lanes hold (output, parity), as the tiles' and the x86 tables' do: one
// 4-lane vector is the even and odd sums of two outputs, and each lane fuses
// its column pairs in ascending order (fmla: one rounding). DAZ and FTZ come
// from FPCR.FZ, which flushes denormal inputs and results to zeros of their
// sign. One difference from x86 remains: Arm decides that a result is tiny
// before rounding, x86 (and canonical_bf16.h) after, so a sum whose exact
// value lies just below 2^-126 and rounds up to it would be flushed here
// only. Such a result sets FPSR.UFC, so a product that raised it at all is
// computed again by the scalar oracle: the fast path runs only when no
// result was tiny, and then both definitions agree.

constexpr uint64_t kFpcrFz = 1u << 24, kFpsrUfc = 1u << 3;

inline uint64_t get_fpcr() {
  uint64_t v;
  __asm__ volatile("mrs %0, fpcr" : "=r"(v) : : "memory");
  return v;
}
inline void set_fpcr(uint64_t v) { __asm__ volatile("msr fpcr, %0" : : "r"(v) : "memory"); }
inline uint64_t get_fpsr() {
  uint64_t v;
  __asm__ volatile("mrs %0, fpsr" : "=r"(v) : : "memory");
  return v;
}
inline void set_fpsr(uint64_t v) { __asm__ volatile("msr fpsr, %0" : : "r"(v) : "memory"); }

// Runs product() (a noinline function that writes memory, and the register
// accesses clobber memory, so that none of its arithmetic moves across the
// mode switch) with FPCR.FZ set; true when no result underflowed.
// The caller's FPCR and FPSR are restored.
template <class Product>
bool without_underflow(Product product) {
  const uint64_t fpcr = get_fpcr(), fpsr = get_fpsr();
  set_fpsr(fpsr & ~kFpsrUfc);
  set_fpcr(fpcr | kFpcrFz);
  product();
  const bool underflow = (get_fpsr() & kFpsrUfc) != 0;
  set_fpcr(fpcr);
  set_fpsr(fpsr);
  return !underflow;
}

// Step 1 on 4 activations: bf16 rounding (f32_to_bf16's bits: to nearest
// even, NaN kept quiet), then DAZ.
inline float32x4_t round_activations(float32x4_t x) {
  const uint32x4_t u = vreinterpretq_u32_f32(x), hi = vdupq_n_u32(0xffff0000u);
  const uint32x4_t lsb = vandq_u32(vshrq_n_u32(u, 16), vdupq_n_u32(1));
  const uint32x4_t rounded = vandq_u32(vaddq_u32(u, vaddq_u32(vdupq_n_u32(0x7fff), lsb)), hi);
  const uint32x4_t is_nan = vcgtq_u32(vandq_u32(u, vdupq_n_u32(0x7fffffffu)), vdupq_n_u32(0x7f800000u));
  const uint32x4_t quiet = vorrq_u32(vandq_u32(u, hi), vdupq_n_u32(0x00400000u));
  const uint32x4_t r = vbslq_u32(is_nan, quiet, rounded);
  const uint32x4_t denormal = vceqq_u32(vandq_u32(r, vdupq_n_u32(0x7f800000u)), vdupq_n_u32(0));
  return vreinterpretq_f32_u32(vbslq_u32(denormal, vandq_u32(r, vdupq_n_u32(0x80000000u)), r));
}

constexpr size_t kBfMaxCols = 4096;  // longest row rounded on the stack
constexpr size_t kBfMR = 4;          // activation rows per block
constexpr size_t kBfNR = 8;          // outputs per block (4 vectors of 2 outputs x 2 parities)

inline size_t chunks_cols(size_t k) { return (k + cb::kChunkCols - 1) / cb::kChunkCols * cb::kChunkCols; }

// dst[0 .. chunks_cols(k)) = the rounded x[0..k), zeros past k.
inline void round_row(const float* x, size_t k, float* dst) {
  size_t c = 0;
  for (; c + 4 <= k; c += 4) vst1q_f32(dst + c, round_activations(vld1q_f32(x + c)));
  for (; c < k; ++c) dst[c] = cb::activation(x[c]);
  for (; c < chunks_cols(k); ++c) dst[c] = 0.0f;
}

// 4 bf16 → 4 f32 (exact).
inline float32x4_t widen(uint16x4_t v) { return vreinterpretq_f32_u32(vshll_n_u16(v, 16)); }

// One chunk of 8 outputs (rows[j], 32 bf16 each from rows[j] + c0, the
// chunk's columns in order) times MR rounded activation rows (xr, row stride
// ldr): ys[i][j] = y + (even + odd), as canonical_bf16.h's step 3.
template <size_t MR>
__attribute__((always_inline)) inline void chunk8(const uint16_t* const rows[kBfNR], const float* xr,
                                                  size_t ldr, float ys[MR][kBfNR]) {
  float32x4_t acc[MR][4];
  for (size_t i = 0; i < MR; ++i)
    for (size_t h = 0; h < 4; ++h) acc[i][h] = vdupq_n_f32(0.0f);
  for (size_t c = 0; c < cb::kChunkCols; c += 4) {  // two column pairs at a time
    float32x4_t wp[4], wq[4];  // pair c/2 and c/2 + 1 of outputs (2h, 2h+1)
    for (size_t h = 0; h < 4; ++h) {
      const float32x4_t a = widen(vld1_u16(rows[2 * h] + c)), b = widen(vld1_u16(rows[2 * h + 1] + c));
      wp[h] = vreinterpretq_f32_u64(vzip1q_u64(vreinterpretq_u64_f32(a), vreinterpretq_u64_f32(b)));
      wq[h] = vreinterpretq_f32_u64(vzip2q_u64(vreinterpretq_u64_f32(a), vreinterpretq_u64_f32(b)));
    }
    for (size_t i = 0; i < MR; ++i) {
      const float* x = xr + i * ldr + c;
      const float32x2_t p = vld1_f32(x), q = vld1_f32(x + 2);  // (even, odd) of both pairs
      const float32x4_t xp = vcombine_f32(p, p), xq = vcombine_f32(q, q);
      for (size_t h = 0; h < 4; ++h) acc[i][h] = vfmaq_f32(vfmaq_f32(acc[i][h], wp[h], xp), wq[h], xq);
    }
  }
  for (size_t i = 0; i < MR; ++i) {
    const float32x4_t s0 = vpaddq_f32(acc[i][0], acc[i][1]), s1 = vpaddq_f32(acc[i][2], acc[i][3]);
    vst1q_f32(ys[i], vaddq_f32(vld1q_f32(ys[i]), s0));
    vst1q_f32(ys[i] + 4, vaddq_f32(vld1q_f32(ys[i] + 4), s1));
  }
}

// The rows of output j (ids: row(j)) as plain bf16 from column c0, 32 of
// them: in place when the layout is plain and the chunk is whole, else
// copied into tmp (vnni2, or the zero-padded last chunk).
template <class Row>
void chunk_rows(const WeightView& w, Row row, size_t j0, size_t nr, size_t c0,
                uint16_t tmp[kBfNR][cb::kChunkCols], const uint16_t* rows[kBfNR]) {
  const uint16_t* d = static_cast<const uint16_t*>(w.data);
  const bool vnni2 = w.layout == Layout::vnni2;
  for (size_t j = 0; j < kBfNR; ++j) {
    const size_t r = row(j0 + (j < nr ? j : 0));  // spare lanes repeat an output, never stored
    if (!vnni2 && c0 + cb::kChunkCols <= w.cols) {
      rows[j] = d + r * w.cols + c0;
      continue;
    }
    for (size_t c = 0; c < cb::kChunkCols; ++c) {
      const size_t col = c0 + c;
      tmp[j][c] = col >= w.cols ? 0 : vnni2 ? d[((col / 2) * w.rows + r) * 2 + (col & 1)] : d[r * w.cols + col];
    }
    rows[j] = tmp[j];
  }
}

// n outputs (row(j): the matrix row of output j) for MR rounded rows.
template <size_t MR, class Row>
void bf16_block(const WeightView& w, Row row, size_t n, const float* xr, size_t ldr, float* Y,
                size_t ldy) {
  alignas(16) uint16_t tmp[kBfNR][cb::kChunkCols];
  const uint16_t* rows[kBfNR];
  for (size_t j0 = 0; j0 < n; j0 += kBfNR) {
    const size_t nr = n - j0 < kBfNR ? n - j0 : kBfNR;
    alignas(16) float ys[MR][kBfNR] = {};
    for (size_t c0 = 0; c0 < w.cols; c0 += cb::kChunkCols) {
      chunk_rows(w, row, j0, nr, c0, tmp, rows);
      chunk8<MR>(rows, xr + c0, ldr, ys);
    }
    for (size_t i = 0; i < MR; ++i) std::memcpy(Y + i * ldy + j0, ys[i], nr * sizeof(float));
  }
}

template <class Row>
__attribute__((noinline)) void bf16_product(const WeightView& w, Row row, size_t n, const float* X,
                                            size_t ldx, size_t m, float* Y, size_t ldy) {
  alignas(16) float xr[kBfMR * kBfMaxCols];
  for (size_t i0 = 0; i0 < m; i0 += kBfMR) {
    const size_t mr = m - i0 < kBfMR ? m - i0 : kBfMR;
    for (size_t i = 0; i < mr; ++i) round_row(X + (i0 + i) * ldx, w.cols, xr + i * kBfMaxCols);
    float* y = Y + i0 * ldy;
    if (mr == kBfMR)
      bf16_block<kBfMR>(w, row, n, xr, kBfMaxCols, y, ldy);
    else
      for (size_t i = 0; i < mr; ++i) bf16_block<1>(w, row, n, xr + i * kBfMaxCols, kBfMaxCols, y + i * ldy, ldy);
  }
}

bool bf16_fits(const WeightView& w) {
  return w.dtype == DType::bf16 && w.cols <= kBfMaxCols &&
         (w.layout == Layout::plain || (w.layout == Layout::vnni2 && w.cols % 2 == 0));
}

struct AllRows {
  size_t operator()(size_t j) const { return j; }
};
struct IdRows {
  const uint32_t* ids;
  size_t operator()(size_t j) const { return ids[j]; }
};

// ---- the table's products ---------------------------------------------------

using I8 = canonical_i8::NeonWidening;

void matmul_neon(const WeightView& w, const float* X, size_t ldx, size_t m, float* Y, size_t ldy) {
  if (bf16_fits(w)) {
    if (m == 0 || w.rows == 0) return;
    if (!without_underflow([&] { bf16_product(w, AllRows{}, w.rows, X, ldx, m, Y, ldy); }))
      kernels_scalar().matmul(w, X, ldx, m, Y, ldy);
    return;
  }
  if (canonical_i8::fits_neon(w)) return canonical_i8::matmul_neon<I8>(w, X, ldx, m, Y, ldy);
  kernels_scalar().matmul(w, X, ldx, m, Y, ldy);
}

void matvec_neon(const WeightView& w, const float* x, float* y) {
  if (bf16_fits(w) || canonical_i8::fits_neon(w)) return matmul_neon(w, x, 0, 1, y, 0);
  kernels_scalar().matvec(w, x, y);
}

void rows_dot_neon(const WeightView& w, const uint32_t* ids, size_t n, const float* x, float* out) {
  if (bf16_fits(w)) {
    if (n == 0) return;
    if (!without_underflow([&] { bf16_product(w, IdRows{ids}, n, x, 0, 1, out, 0); }))
      kernels_scalar().rows_dot(w, ids, n, x, out);
    return;
  }
  if (canonical_i8::fits_neon(w)) return canonical_i8::rows_dot_neon<I8>(w, ids, n, x, out);
  kernels_scalar().rows_dot(w, ids, n, x, out);
}

void matmul_shared_neon(const WeightView* ws, size_t n, const float* X, size_t ldx, size_t m,
                        float* const* Ys, const size_t* ldys) {
  bool shared = n > 0 && m > 1;
  for (size_t i = 0; shared && i < n; ++i)
    shared = canonical_i8::fits_neon(ws[i]) && ws[i].cols == ws[0].cols;
  if (shared) return canonical_i8::matmul_shared_neon<I8>(ws, n, X, ldx, m, Ys, ldys);
  for (size_t i = 0; i < n; ++i) matmul_neon(ws[i], X, ldx, m, Ys[i], ldys[i]);
}

// ---- kernels.h's canonical f32 orders ---------------------------------------

// The 16 canonical lanes as 4 vectors (lanes 0-3, 4-7, 8-11, 12-15) and the
// tree: l + 8, l + 4, l + 2, l + 1.
inline float reduce_canonical(const float32x4_t s[4]) {
  const float32x4_t a = vaddq_f32(vaddq_f32(s[0], s[2]), vaddq_f32(s[1], s[3]));
  const float32x2_t b = vadd_f32(vget_low_f32(a), vget_high_f32(a));
  return vget_lane_f32(vpadd_f32(b, b), 0);
}

void dot_rows_neon(const float* rows, size_t ld, size_t n, const float* x, size_t d, float* out) {
  const size_t full = d & ~size_t(15);
  for (size_t i = 0; i < n; ++i) {
    const float* r = rows + i * ld;
    float32x4_t s[4] = {vdupq_n_f32(0.0f), vdupq_n_f32(0.0f), vdupq_n_f32(0.0f), vdupq_n_f32(0.0f)};
    for (size_t c = 0; c < full; c += 16)
      for (size_t v = 0; v < 4; ++v) s[v] = vfmaq_f32(s[v], vld1q_f32(r + c + 4 * v), vld1q_f32(x + c + 4 * v));
    if (full < d) {  // the last terms, each into its own lane
      alignas(16) float lanes[kCanonicalLanes];
      for (size_t v = 0; v < 4; ++v) vst1q_f32(lanes + 4 * v, s[v]);
      for (size_t c = full; c < d; ++c) lanes[c - full] = std::fma(r[c], x[c], lanes[c - full]);
      for (size_t v = 0; v < 4; ++v) s[v] = vld1q_f32(lanes + 4 * v);
    }
    out[i] += reduce_canonical(s);
  }
}

// canonical_exp.h's steps on 4 lanes (t <= 0; below kMin or NaN: 0).
inline float32x4_t exp_canonical(float32x4_t t) {
  namespace ce = canonical_exp;
  const uint32x4_t live = vcgeq_f32(t, vdupq_n_f32(ce::kMin));
  const float32x4_t k = vrndnq_f32(vmulq_f32(t, vdupq_n_f32(ce::kLog2e)));
  float32x4_t r = vfmaq_f32(t, k, vdupq_n_f32(-ce::kLn2Hi));
  r = vfmaq_f32(r, k, vdupq_n_f32(-ce::kLn2Lo));
  float32x4_t p = vdupq_n_f32(ce::kC6);
  for (float c : {ce::kC5, ce::kC4, ce::kC3, ce::kC2, ce::kC1, ce::kC0}) p = vfmaq_f32(vdupq_n_f32(c), p, r);
  // k is integral (and, where live, small): the conversion is exact.
  const int32x4_t e = vshlq_n_s32(vcvtq_s32_f32(vbslq_f32(live, k, vdupq_n_f32(0.0f))), 23);
  const uint32x4_t bits = vreinterpretq_u32_s32(vaddq_s32(vreinterpretq_s32_f32(p), e));
  return vreinterpretq_f32_u32(vandq_u32(live, bits));
}

// max(x[0..n)) with the scalar loop's NaN rule lane for lane: a lane takes
// v only when v > its value, so a NaN never enters but x[0] = NaN stays.
inline float32x4_t max_step(float32x4_t a, float32x4_t v) { return vbslq_f32(vcgtq_f32(v, a), v, a); }
inline float row_max(const float* x, size_t n) {
  float32x4_t a = vdupq_n_f32(x[0]), b = a;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) a = max_step(a, vld1q_f32(x + i)), b = max_step(b, vld1q_f32(x + i + 4));
  a = max_step(a, b);
  alignas(16) float l[4];
  vst1q_f32(l, a);
  float m = l[0];
  for (size_t j = 1; j < 4; ++j) m = l[j] > m ? l[j] : m;
  for (; i < n; ++i) m = x[i] > m ? x[i] : m;
  return m;
}

float softmax_neon(float* x, size_t n) {
  const float mx = row_max(x, n);
  const float32x4_t vm = vdupq_n_f32(mx);
  float32x4_t s[4] = {vdupq_n_f32(0.0f), vdupq_n_f32(0.0f), vdupq_n_f32(0.0f), vdupq_n_f32(0.0f)};
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    const float32x4_t e = exp_canonical(vsubq_f32(vld1q_f32(x + i), vm));
    vst1q_f32(x + i, e);
    s[(i / 4) & 3] = vaddq_f32(s[(i / 4) & 3], e);
  }
  if (i < n) {  // the last 1-3 values, zeros past the end (+0 adds exactly)
    alignas(16) float t[4] = {-INFINITY, -INFINITY, -INFINITY, -INFINITY};
    std::memcpy(t, x + i, (n - i) * sizeof(float));
    const float32x4_t e = exp_canonical(vsubq_f32(vld1q_f32(t), vm));
    vst1q_f32(t, e);
    std::memcpy(x + i, t, (n - i) * sizeof(float));
    s[(i / 4) & 3] = vaddq_f32(s[(i / 4) & 3], e);
  }
  const float total = reduce_canonical(s);
  const float32x4_t inv = vdupq_n_f32(1.0f / total);
  for (i = 0; i + 4 <= n; i += 4) vst1q_f32(x + i, vmulq_f32(vld1q_f32(x + i), inv));
  for (; i < n; ++i) x[i] *= vgetq_lane_f32(inv, 0);
  return std::log(total) + mx;
}

// attend_gemm_blocks.h's vector traits: 4 lanes.
struct Q4 {
  using Vec = float32x4_t;
  static constexpr size_t kWidth = 4;
  static Vec zero() { return vdupq_n_f32(0.0f); }
  static Vec set1(float v) { return vdupq_n_f32(v); }
  static Vec load(const float* p) { return vld1q_f32(p); }
  static Vec fmadd(Vec a, Vec b, Vec c) { return vfmaq_f32(c, a, b); }
  static Vec mul(Vec a, Vec b) { return vmulq_f32(a, b); }
  // One C row's two vectors; the last panel's through a buffer.
  struct Io {
    size_t nc;
    explicit Io(size_t n) : nc(n) {}
    void load(const float* c, Vec& x0, Vec& x1) const {
      if (nc == 2 * kWidth) {
        x0 = vld1q_f32(c), x1 = vld1q_f32(c + 4);
        return;
      }
      alignas(16) float t[2 * kWidth] = {};
      std::memcpy(t, c, nc * sizeof(float));
      x0 = vld1q_f32(t), x1 = vld1q_f32(t + 4);
    }
    void store(float* c, Vec x0, Vec x1) const {
      if (nc == 2 * kWidth) {
        vst1q_f32(c, x0), vst1q_f32(c + 4, x1);
        return;
      }
      alignas(16) float t[2 * kWidth];
      vst1q_f32(t, x0), vst1q_f32(t + 4, x1);
      std::memcpy(c, t, nc * sizeof(float));
    }
  };
  // op(B)[k0 + i][c0 + j] for i < kc, j < nc into panel[i][j], zeros past nc.
  static void pack(bool trans_b, const float* B, size_t ldb, size_t k0, size_t kc, size_t c0,
                   size_t nc, float* panel) {
    constexpr size_t NR = 2 * kWidth;
    for (size_t i = 0; i < kc; ++i)
      for (size_t j = 0; j < NR; ++j)
        panel[i * NR + j] = j >= nc ? 0.0f : trans_b ? B[(c0 + j) * ldb + k0 + i] : B[(k0 + i) * ldb + c0 + j];
  }
};

void attend_gemm_neon(bool trans_b, size_t m, size_t n, size_t k, float alpha, const float* A,
                      size_t lda, const float* B, size_t ldb, float* C, size_t ldc, size_t causal) {
  attend_blocks<Q4>(trans_b, m, n, k, alpha, A, lda, B, ldb, C, ldc, causal);
}

void sgemm_neon(bool trans_a, bool trans_b, size_t m, size_t n, size_t k, float alpha,
                const float* A, size_t lda, const float* B, size_t ldb, float beta, float* C,
                size_t ldc) {
  kernels_scalar().sgemm(trans_a, trans_b, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}

const Kernels kNeon = {"neon",        matvec_neon,  matmul_neon, rows_dot_neon,
                       dot_rows_neon, softmax_neon, sgemm_neon,  attend_gemm_neon,
                       matmul_shared_neon};

}  // namespace

const Kernels* kernels_neon() { return &kNeon; }

}  // namespace amxqa
