// kernels_avx512.cpp — the AVX-512 table ("avx512"), tuned for Zen 4/5 and
// Sapphire Rapids class cores (AVX-512F/BW/VL/DQ).
//
//   sgemm   register-blocked 14×32 f32 micro-kernel (28 zmm accumulators,
//           broadcast A, two B vectors per k) under the GotoBLAS blocking of
//           gemm_blocking.h. B is packed KC×NC per block (Bᵀ through 16×16
//           in-register transposes); A is broadcast in place in either
//           orientation. Edge tiles use masks and a compile-time row count.
//           ~90% of the measured single-core FMA peak on Zen 5.
//   matmul  f32 weights: weight-stationary (matmul_wx: plain rows broadcast
//           straight from the model) or the sgemm core.
//           bf16 weights: canonical_bf16.h, the tiles' arithmetic, so that
//           every backend gives the same bits: prefill on zmm
//           (canonical_bf16_avx512.cpp), decode on the AVX2 kernels
//           (canonical_bf16_avx2.cpp). vdpbf16ps cannot be used: it adds the
//           odd product before the even one into one sum, where the tiles
//           keep two sums.
//           i8 weights: canonical_i8.h (activations quantised per row, exact
//           int32 sums) on VNNI, canonical_i8_avx512.cpp.
//   matvec  decode: f32 rows 16 at a time; bf16 and i8 as matmul.
//   rows_dot the row dot on the selected rows.
#include <immintrin.h>

#include <cmath>


#include "kernels/attend_gemm_avx512.h"
#include "kernels/avx512_gemm_core.h"
#include "kernels/canonical_bf16_avx2.h"
#include "kernels/canonical_bf16_avx512.h"
#include "kernels/canonical_exp.h"
#include "kernels/canonical_i8_x86.h"
#include "kernels/gemm_blocking.h"
#include "kernels/kernels.h"

// (avx512_gemm_core.h silences GCC 12's false -Wmaybe-uninitialized inside
// the AVX-512 intrinsics for this file too.)

namespace amxqa {
namespace {

// ---------------------------------------------------------------- packing

// op(A) rows for the f32 core, read in place: A is [m][k] (lda) or, when
// transposed, [k][m]; the kernel form (kTransA) follows `trans`.
struct PackAF32 {
  const float* A;
  size_t lda;
  bool trans;
  const float* operator()(size_t i0, size_t, size_t p0, size_t, float*) const {
    return trans ? A + p0 * lda + i0 : A + i0 * lda + p0;
  }
};

// op(B) columns for the f32 core: B is [k][n] (ldb) or, transposed, [n][k].
struct PackBF32 {
  const float* B;
  size_t ldb;
  bool trans;
  void operator()(size_t j0, size_t nc, size_t p0, size_t kc, float* dst) const {
    if (trans) {  // Bᵀ: each B row j is contiguous in k
      return pack_rows_transposed(nc, kc, dst, [&](size_t j, size_t p, size_t n) {
        return _mm512_maskz_loadu_ps(lanes(n), B + (j0 + j) * ldb + p0 + p);
      });
    }
    for (size_t jr = 0; jr < nc; jr += kNR, dst += kc * kNR) {
      const size_t nr = nc - jr < kNR ? nc - jr : kNR;
      const __mmask16 m0 = lanes(nr), m1 = lanes(nr > 16 ? nr - 16 : 0);
      for (size_t p = 0; p < kc; ++p) {
        const float* src = B + (p0 + p) * ldb + j0 + jr;
        _mm512_store_ps(dst + p * kNR, _mm512_maskz_loadu_ps(m0, src));
        _mm512_store_ps(dst + p * kNR + 16, _mm512_maskz_loadu_ps(m1, src + 16));
      }
    }
  }
};

template <class PackB>
struct F32Gemm {
  static constexpr size_t MR = kMR, NR = kNR, KC = kKC, NC = kNC;
  using AElem = float;
  using BElem = float;
  PackAF32 pa;
  PackB pb;
  const float* pack_a(size_t i0, size_t mr, size_t p0, size_t kc, float* dst) const {
    return pa(i0, mr, p0, kc, dst);
  }
  void pack_b(size_t j0, size_t nc, size_t p0, size_t kc, float* dst) const {
    pb(j0, nc, p0, kc, dst);
  }
  void kernel(size_t mr, size_t kc, const float* a, const float* b, float* c, size_t ldc,
              size_t nr, float alpha, float beta) const {
    if (pa.trans) {
      AMXQA_KERNEL_SWITCH(kernel_f32_t, mr, kc, a, pa.lda, b, c, ldc, nr, alpha, beta)
    } else {
      AMXQA_KERNEL_SWITCH(kernel_f32_n, mr, kc, a, pa.lda, b, c, ldc, nr, alpha, beta)
    }
  }
};

// ---------------------------------------------------------------- weight-stationary matmul
//
// Prefill blocks have few rows (m <= kPrefillRows = 64) and every weight is
// used by exactly one block, so packing the weights (the GEMM's B) costs as
// much as the product itself. This path computes Yᵀ = W · Xᵀ instead: the
// activations are packed once per call into [p][32 rows] panels (bf16 pairs
// for bf16 weights), and the weights are broadcast straight from the model
// file — plain f32 rows (a[i*cols + p]) or vnni2 pairs (a[p*rows + i]), the
// layouts the exporter writes. The 14-weight-row × 32-activation-row tile is
// transposed in registers on the way out.

constexpr size_t kWxRows = 64;   // activation rows per pass (one prefill block)
constexpr size_t kWxKC = 256;    // k units (floats or bf16 pairs) per packed block
constexpr size_t kWxMR = 14;     // weight rows per tile

// Stores the tile: acc[i] holds weight row i for 16 activation rows; Y row t
// gets lanes [0, mr) of the transposed vector t, added to Y when accumulate.
template <int M>
inline void store_tile_t(const __m512* acc, size_t nt, float* y, size_t ldy, size_t mr,
                         bool accumulate) {
  __m512 r[16];
#pragma GCC unroll 16
  for (int i = 0; i < 16; ++i) r[i] = i < M ? acc[i] : _mm512_setzero_ps();
  transpose16(r);
  const __mmask16 m = lanes(mr);
  for (size_t t = 0; t < nt; ++t) {
    float* yt = y + t * ldy;
    __m512 v = r[t];
    if (accumulate) v = _mm512_add_ps(v, _mm512_maskz_loadu_ps(m, yt));
    _mm512_mask_storeu_ps(yt, m, v);
  }
}

// f32 weights, plain rows: weight (i, p) at a[i*lda + p]; xp is [kc][32].
// pf (may be null): the next weight panel, fetched one line per row every
// 16 steps so that it is in L1 when its own tile starts.
template <int M, int NV>
void kernel_wx_f32(size_t kc, const float* a, size_t lda, const float* xp, float* y, size_t ldy,
                   size_t nt, bool accumulate, const float* pf) {
  __m512 acc0[M], acc1[M];
#pragma GCC unroll 14
  for (int i = 0; i < M; ++i) acc0[i] = acc1[i] = _mm512_setzero_ps();
  for (size_t p = 0; p < kc; ++p) {
    if (pf && (p & 15) == 0) {
#pragma GCC unroll 14
      for (int i = 0; i < int(kWxMR); ++i) _mm_prefetch(reinterpret_cast<const char*>(pf + i * lda + p), _MM_HINT_T0);
    }
    const __m512 x0 = _mm512_load_ps(xp + p * 32);
    const __m512 x1 = NV > 1 ? _mm512_load_ps(xp + p * 32 + 16) : x0;
#pragma GCC unroll 14
    for (int i = 0; i < M; ++i) {
      const __m512 ai = _mm512_set1_ps(a[i * lda + p]);
      acc0[i] = _mm512_fmadd_ps(ai, x0, acc0[i]);
      if (NV > 1) acc1[i] = _mm512_fmadd_ps(ai, x1, acc1[i]);
    }
  }
  store_tile_t<M>(acc0, nt < 16 ? nt : 16, y, ldy, M, accumulate);
  if (NV > 1 && nt > 16) store_tile_t<M>(acc1, nt - 16, y + 16 * ldy, ldy, M, accumulate);
}

template <int M>
void kernel_wx_f32_1(size_t kc, const float* a, size_t lda, const float* xp, float* y,
                     size_t ldy, size_t nt, bool acc, const float* pf) {
  kernel_wx_f32<M, 1>(kc, a, lda, xp, y, ldy, nt, acc, pf);
}
template <int M>
void kernel_wx_f32_2(size_t kc, const float* a, size_t lda, const float* xp, float* y,
                     size_t ldy, size_t nt, bool acc, const float* pf) {
  kernel_wx_f32<M, 2>(kc, a, lda, xp, y, ldy, nt, acc, pf);
}
// X rows [0, mt) (f32, stride ldx), columns [p0, p0 + kc) → xp[panel][p][32].
void pack_x_f32(const float* X, size_t ldx, size_t mt, size_t p0, size_t kc, float* xp) {
  pack_rows_transposed(mt, kc, xp, [&](size_t j, size_t p, size_t n) {
    return _mm512_maskz_loadu_ps(lanes(n), X + j * ldx + p0 + p);
  });
}

// Y[m][rows] = X · Wᵀ for plain f32 weights.
void matmul_wx(const WeightView& w, const float* X, size_t ldx, size_t m, float* Y, size_t ldy) {
  alignas(64) float xbuf[kWxKC * kWxRows];
  const size_t R = w.rows, cols = w.cols;
  for (size_t i0 = 0; i0 < m; i0 += kWxRows) {
    const size_t mt = m - i0 < kWxRows ? m - i0 : kWxRows;
    const float* Xi = X + i0 * ldx;
    float* Yi = Y + i0 * ldy;
    for (size_t pc = 0; pc < cols; pc += kWxKC) {
      const size_t kc = cols - pc < kWxKC ? cols - pc : kWxKC;
      const bool acc = pc > 0;
      pack_x_f32(Xi, ldx, mt, pc, kc, xbuf);
      for (size_t r0 = 0; r0 < R; r0 += kWxMR) {
        const size_t mr = R - r0 < kWxMR ? R - r0 : kWxMR;
        for (size_t t0 = 0; t0 < mt; t0 += 32) {
          const size_t nt = mt - t0 < 32 ? mt - t0 : 32;
          float* y = Yi + t0 * ldy + r0;
          // The first activation panel pulls in the next full weight panel.
          const bool fetch = t0 == 0 && r0 + 2 * kWxMR <= R;
          const float* a = static_cast<const float*>(w.data) + r0 * cols + pc;
          const float* xp = xbuf + t0 * kc;
          const float* pf = fetch ? a + kWxMR * cols : nullptr;
          if (nt > 16) {
            AMXQA_KERNEL_SWITCH(kernel_wx_f32_2, mr, kc, a, cols, xp, y, ldy, nt, acc, pf)
          } else {
            AMXQA_KERNEL_SWITCH(kernel_wx_f32_1, mr, kc, a, cols, xp, y, ldy, nt, acc, pf)
          }
        }
      }
    }
  }
}

// ---------------------------------------------------------------- row dots

// Σ_c row[c]·x[c] for the plain layouts, widened to f32 in registers.
float dot_f32(const float* row, const float* x, size_t n) {
  __m512 a0 = _mm512_setzero_ps(), a1 = _mm512_setzero_ps();
  size_t c = 0;
  for (; c + 32 <= n; c += 32) {
    a0 = _mm512_fmadd_ps(_mm512_loadu_ps(row + c), _mm512_loadu_ps(x + c), a0);
    a1 = _mm512_fmadd_ps(_mm512_loadu_ps(row + c + 16), _mm512_loadu_ps(x + c + 16), a1);
  }
  for (; c < n; c += 16) {
    const __mmask16 m = lanes(n - c);
    a0 = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(m, row + c), _mm512_maskz_loadu_ps(m, x + c), a0);
  }
  return _mm512_reduce_add_ps(_mm512_add_ps(a0, a1));
}

// ---------------------------------------------------------------- matvec

// f32 plain rows: 16 rows per pass, one accumulator each, summed together by
// one in-register transpose instead of a horizontal reduction per row. Rows
// past the end re-read the last row (always valid memory) and are not stored.
void matvec_f32(const WeightView& w, const float* x, float* y) {
  const float* d = static_cast<const float*>(w.data);
  const size_t R = w.rows, C = w.cols, full = C & ~size_t(15);
  const __mmask16 tail = lanes(C - full);
  for (size_t r0 = 0; r0 < R; r0 += 16) {
    const float* row[16];
    for (size_t i = 0; i < 16; ++i) row[i] = d + (r0 + i < R ? r0 + i : R - 1) * C;
    __m512 acc[16];
#pragma GCC unroll 16
    for (int i = 0; i < 16; ++i) acc[i] = _mm512_setzero_ps();
    for (size_t c = 0; c < full; c += 16) {
      const __m512 xv = _mm512_loadu_ps(x + c);
#pragma GCC unroll 16
      for (int i = 0; i < 16; ++i) acc[i] = _mm512_fmadd_ps(_mm512_loadu_ps(row[i] + c), xv, acc[i]);
    }
    if (tail) {
      const __m512 xv = _mm512_maskz_loadu_ps(tail, x + full);
#pragma GCC unroll 16
      for (int i = 0; i < 16; ++i)
        acc[i] = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(tail, row[i] + full), xv, acc[i]);
    }
    transpose16(acc);
    __m512 sum = acc[0];
#pragma GCC unroll 16
    for (int j = 1; j < 16; ++j) sum = _mm512_add_ps(sum, acc[j]);
    _mm512_mask_storeu_ps(y + r0, lanes(R - r0), sum);
  }
}

// i8 matrices the VNNI kernels do not take go to the AVX2 kernels (a CPU
// without AVX512-VNNI) or the scalar oracle (plain layout, very long rows):
// canonical_i8.h fixes the bits, not the speed.
void matvec_avx512(const WeightView& w, const float* x, float* y) {
  switch (w.dtype) {
    case DType::bf16: return canonical_bf16::matvec_avx2(w, x, y);
    case DType::i8:
      if (canonical_i8::fits_avx512(w)) return canonical_i8::matvec_avx512(w, x, y);
      if (canonical_i8::fits_avx2(w)) return canonical_i8::matvec_avx2(w, x, y);
      return kernels_scalar().matvec(w, x, y);
    case DType::f32: return matvec_f32(w, x, y);
  }
}

void rows_dot_avx512(const WeightView& w, const uint32_t* ids, size_t n, const float* x,
                     float* out) {
  switch (w.dtype) {
    case DType::bf16: return canonical_bf16::rows_dot_avx2(w, ids, n, x, out);
    case DType::i8:
      if (canonical_i8::fits_avx512(w)) return canonical_i8::rows_dot_avx512(w, ids, n, x, out);
      if (canonical_i8::fits_avx2(w)) return canonical_i8::rows_dot_avx2(w, ids, n, x, out);
      return kernels_scalar().rows_dot(w, ids, n, x, out);
    case DType::f32:
      for (size_t i = 0; i < n; ++i)
        out[i] = dot_f32(static_cast<const float*>(w.data) + ids[i] * w.cols, x, w.cols);
      return;
  }
}

// ---------------------------------------------------------------- canonical order

// kernels.h's tree over the 16 lanes: l + 8, + 4, + 2, + 1.
inline float reduce_canonical(__m512 a) {
  const __m256 s8 = _mm256_add_ps(_mm512_castps512_ps256(a), _mm512_extractf32x8_ps(a, 1));
  const __m128 s4 = _mm_add_ps(_mm256_castps256_ps128(s8), _mm256_extractf128_ps(s8, 1));
  const __m128 s2 = _mm_add_ps(s4, _mm_movehl_ps(s4, s4));
  return _mm_cvtss_f32(_mm_add_ss(s2, _mm_movehdup_ps(s2)));
}

// One zmm is the 16 canonical lanes; four rows at a time for independent chains.
void dot_rows_avx512(const float* rows, size_t ld, size_t n, const float* x, size_t d,
                     float* out) {
  const size_t full = d & ~size_t(15);
  const __mmask16 tail = lanes(d - full);
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    const float* r = rows + i * ld;
    __m512 a0 = _mm512_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;
    for (size_t c = 0; c < full; c += 16) {
      const __m512 xv = _mm512_loadu_ps(x + c);
      a0 = _mm512_fmadd_ps(_mm512_loadu_ps(r + c), xv, a0);
      a1 = _mm512_fmadd_ps(_mm512_loadu_ps(r + ld + c), xv, a1);
      a2 = _mm512_fmadd_ps(_mm512_loadu_ps(r + 2 * ld + c), xv, a2);
      a3 = _mm512_fmadd_ps(_mm512_loadu_ps(r + 3 * ld + c), xv, a3);
    }
    if (tail) {  // masked lanes keep their sums: the scalar order skips them
      const __m512 xv = _mm512_maskz_loadu_ps(tail, x + full);
      a0 = _mm512_mask3_fmadd_ps(_mm512_maskz_loadu_ps(tail, r + full), xv, a0, tail);
      a1 = _mm512_mask3_fmadd_ps(_mm512_maskz_loadu_ps(tail, r + ld + full), xv, a1, tail);
      a2 = _mm512_mask3_fmadd_ps(_mm512_maskz_loadu_ps(tail, r + 2 * ld + full), xv, a2, tail);
      a3 = _mm512_mask3_fmadd_ps(_mm512_maskz_loadu_ps(tail, r + 3 * ld + full), xv, a3, tail);
    }
    out[i] += reduce_canonical(a0);
    out[i + 1] += reduce_canonical(a1);
    out[i + 2] += reduce_canonical(a2);
    out[i + 3] += reduce_canonical(a3);
  }
  for (; i < n; ++i) {
    const float* r = rows + i * ld;
    __m512 a = _mm512_setzero_ps();
    for (size_t c = 0; c < full; c += 16)
      a = _mm512_fmadd_ps(_mm512_loadu_ps(r + c), _mm512_loadu_ps(x + c), a);
    if (tail)
      a = _mm512_mask3_fmadd_ps(_mm512_maskz_loadu_ps(tail, r + full),
                                _mm512_maskz_loadu_ps(tail, x + full), a, tail);
    out[i] += reduce_canonical(a);
  }
}

// canonical_exp.h's steps on 16 lanes (t <= 0; below kMin or NaN: 0).
inline __m512 exp_canonical(__m512 t) {
  namespace ce = canonical_exp;
  const __mmask16 live = _mm512_cmp_ps_mask(t, _mm512_set1_ps(ce::kMin), _CMP_GE_OQ);
  const __m512 k = _mm512_roundscale_ps(_mm512_mul_ps(t, _mm512_set1_ps(ce::kLog2e)),
                                        _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m512 r = _mm512_fmadd_ps(k, _mm512_set1_ps(-ce::kLn2Hi), t);
  r = _mm512_fmadd_ps(k, _mm512_set1_ps(-ce::kLn2Lo), r);
  __m512 p = _mm512_set1_ps(ce::kC6);
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(ce::kC5));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(ce::kC4));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(ce::kC3));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(ce::kC2));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(ce::kC1));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(ce::kC0));
  const __m512i e = _mm512_slli_epi32(_mm512_cvtps_epi32(k), 23);
  return _mm512_maskz_mov_ps(live, _mm512_castsi512_ps(_mm512_add_epi32(_mm512_castps_si512(p), e)));
}

float softmax_avx512(float* x, size_t n) {
  __m512 vmax = _mm512_set1_ps(x[0]);
  for (size_t i = 0; i < n; i += 16)
    vmax = _mm512_mask_max_ps(vmax, lanes(n - i), vmax, _mm512_maskz_loadu_ps(lanes(n - i), x + i));
  const float mx = _mm512_reduce_max_ps(vmax);  // max is exact in any order
  const __m512 vm = _mm512_set1_ps(mx);
  __m512 sum = _mm512_setzero_ps();
  for (size_t i = 0; i < n; i += 16) {
    const __mmask16 m = lanes(n - i);
    const __m512 e = _mm512_maskz_mov_ps(m, exp_canonical(_mm512_sub_ps(_mm512_maskz_loadu_ps(m, x + i), vm)));
    _mm512_mask_storeu_ps(x + i, m, e);
    sum = _mm512_mask_add_ps(sum, m, sum, e);
  }
  const float total = reduce_canonical(sum);
  const __m512 inv = _mm512_set1_ps(1.0f / total);
  for (size_t i = 0; i < n; i += 16) {
    const __mmask16 m = lanes(n - i);
    _mm512_mask_storeu_ps(x + i, m, _mm512_mul_ps(_mm512_maskz_loadu_ps(m, x + i), inv));
  }
  return std::log(total) + mx;
}

// ---------------------------------------------------------------- GEMM entry points

void sgemm_avx512(bool trans_a, bool trans_b, size_t m, size_t n, size_t k, float alpha,
                  const float* A, size_t lda, const float* B, size_t ldb, float beta, float* C,
                  size_t ldc) {
  if (m == 0 || n == 0) return;
  if (k == 0) return gemm_scale_only(m, n, beta, C, ldc);
  const F32Gemm<PackBF32> g{{A, lda, trans_a}, {B, ldb, trans_b}};
  gemm_blocked(g, m, n, k, alpha, beta, C, ldc);
}

// Below this many activation rows the weights are streamed once per row
// (matvec) instead of being packed for the GEMM core.
constexpr size_t kMatmulMinRows = 2;

void matmul_avx512(const WeightView& w, const float* X, size_t ldx, size_t m, float* Y,
                   size_t ldy) {
  if (m == 0 || w.rows == 0) return;
  if (m < kMatmulMinRows || w.cols == 0) {
    for (size_t i = 0; i < m; ++i) matvec_avx512(w, X + i * ldx, Y + i * ldy);
    return;
  }
  switch (w.dtype) {
    case DType::f32:
      if (w.layout == Layout::plain) return matmul_wx(w, X, ldx, m, Y, ldy);
      return sgemm_avx512(false, true, m, w.rows, w.cols, 1.0f, X, ldx,
                          static_cast<const float*>(w.data), w.cols, 0.0f, Y, ldy);
    case DType::bf16:
      return canonical_bf16::matmul_avx512(w, X, ldx, m, Y, ldy);
    case DType::i8:
      if (canonical_i8::fits_avx512(w)) return canonical_i8::matmul_avx512(w, X, ldx, m, Y, ldy);
      if (canonical_i8::fits_avx2(w)) return canonical_i8::matmul_avx2(w, X, ldx, m, Y, ldy);
      return kernels_scalar().matmul(w, X, ldx, m, Y, ldy);
  }
}

// One quantisation of X for int8 weights that the VNNI kernel takes (its
// rows are the same for 7- and 8-bit weights); anything else, one matmul each.
void matmul_shared_avx512(const WeightView* ws, size_t n, const float* X, size_t ldx, size_t m,
                          float* const* Ys, const size_t* ldys) {
  bool shared = n > 0 && m >= kMatmulMinRows;
  for (size_t i = 0; shared && i < n; ++i)
    shared = ws[i].dtype == DType::i8 && canonical_i8::fits_avx512(ws[i]) &&
             ws[i].cols == ws[0].cols && ws[i].rows > 0;
  if (shared) return canonical_i8::matmul_shared_avx512(ws, n, X, ldx, m, Ys, ldys);
  for (size_t i = 0; i < n; ++i) matmul_avx512(ws[i], X, ldx, m, Ys[i], ldys[i]);
}

const Kernels kAvx512 = {"avx512",        matvec_avx512,  matmul_avx512, rows_dot_avx512,
                         dot_rows_avx512, softmax_avx512, sgemm_avx512,  attend_gemm_avx512,
                         matmul_shared_avx512};

}  // namespace

const Kernels* kernels_avx512() { return &kAvx512; }

}  // namespace amxqa
