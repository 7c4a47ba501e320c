// kernels_avx512.cpp — the AVX-512 table ("avx512"), tuned for Zen 4/5 and
// Sapphire Rapids class cores (AVX-512F/BW/VL/DQ, plus AVX512-BF16 when the
// CPU has it; checked once at run time, so a plain AVX-512F CPU takes the
// exact f32 paths instead of vdpbf16ps).
//
//   sgemm   register-blocked 14×32 f32 micro-kernel (28 zmm accumulators,
//           broadcast A, two B vectors per k) under the GotoBLAS blocking of
//           gemm_blocking.h. B is packed KC×NC per block (Bᵀ through 16×16
//           in-register transposes); A is broadcast in place in either
//           orientation. Edge tiles use masks and a compile-time row count.
//           ~90% of the measured single-core FMA peak on Zen 5.
//   matmul  f32 weights: the sgemm core (X·Wᵀ).
//           bf16 weights: vdpbf16ps with activations rounded to bf16 pairs
//           (RNE). vnni2 and even-column plain weights go weight-stationary
//           (matmul_wx: weight pairs broadcast straight from the model, never
//           repacked); odd-column plain weights through the 14×32 GEMM core,
//           packed into the vnni2 pair order per call.
//           i8 weights: dequantised to f32 (scale·q) while B is packed, then
//           the f32 core — exact w.r.t. the scalar oracle, no activation
//           quantisation.
//   matvec  decode (bandwidth bound): weights are widened to f32 in registers
//           (bf16: shift / mask; i8: sign-extend), so results match the
//           oracle to f32 rounding.
//   rows_dot the matvec row dot on the selected rows.
#include <immintrin.h>

#include <cmath>


#include "kernels/avx512_gemm_core.h"
#include "kernels/bf16_inline.h"
#include "kernels/canonical_exp.h"
#include "kernels/gemm_blocking.h"
#include "kernels/kernels_avx512_paths.h"
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

// Weight columns (op(B) = Wᵀ, so B column j = weight row j) widened to f32:
// bf16 (plain or vnni2) and i8 (plain or vnni4, times the row scale).
// Plain rows go through the transposing packer; the vnni layouts already hold
// 16 consecutive rows per 64 bytes for one column pair / quad, so widening a
// vector of them yields a [p][j] row directly.
struct PackBWeightF32 {
  const WeightView* w;
  void operator()(size_t j0, size_t nc, size_t p0, size_t kc, float* dst) const {
    const size_t R = w->rows, C = w->cols;
    if (w->layout == Layout::plain) {
      if (w->dtype == DType::bf16) {
        const uint16_t* d = static_cast<const uint16_t*>(w->data);
        return pack_rows_transposed(nc, kc, dst, [&](size_t j, size_t p, size_t n) {
          const __m256i v = _mm256_maskz_loadu_epi16(lanes(n), d + (j0 + j) * C + p0 + p);
          return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(v), 16));
        });
      }
      const int8_t* d = static_cast<const int8_t*>(w->data);
      return pack_rows_transposed(nc, kc, dst, [&](size_t j, size_t p, size_t n) {
        const __m128i v = _mm_maskz_loadu_epi8(lanes(n), d + (j0 + j) * C + p0 + p);
        return _mm512_mul_ps(_mm512_set1_ps(w->scales[j0 + j]),
                             _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(v)));
      });
    }
    const uint32_t* d = static_cast<const uint32_t*>(w->data);  // one pair / quad per row
    const bool bf16 = w->dtype == DType::bf16;
    const size_t per = bf16 ? 2 : 4;  // columns per 32-bit group
    for (size_t jr = 0; jr < nc; jr += kNR, dst += kc * kNR) {
      for (size_t h = 0; h < kNR; h += 16) {
        const size_t r0 = j0 + jr + h;
        const size_t nj = jr + h >= nc ? 0 : (nc - jr - h < 16 ? nc - jr - h : 16);
        const __mmask16 m = lanes(nj);
        const __m512 sc = bf16 ? _mm512_setzero_ps() : _mm512_maskz_loadu_ps(m, w->scales + r0);
        for (size_t p = 0; p < kc; p += per) {
          const __m512i v = _mm512_maskz_loadu_epi32(m, d + ((p0 + p) / per) * R + r0);
          float* out = dst + p * kNR + h;
          if (bf16) {
            _mm512_store_ps(out, _mm512_castsi512_ps(_mm512_slli_epi32(v, 16)));
            if (p + 1 < kc)
              _mm512_store_ps(out + kNR, _mm512_castsi512_ps(_mm512_and_si512(
                                             v, _mm512_set1_epi32(static_cast<int>(0xffff0000u)))));
          } else {
            const __m512i b[4] = {_mm512_srai_epi32(_mm512_slli_epi32(v, 24), 24),
                                  _mm512_srai_epi32(_mm512_slli_epi32(v, 16), 24),
                                  _mm512_srai_epi32(_mm512_slli_epi32(v, 8), 24),
                                  _mm512_srai_epi32(v, 24)};
            for (size_t q = 0; q < 4 && p + q < kc; ++q)
              _mm512_store_ps(out + q * kNR, _mm512_mul_ps(sc, _mm512_cvtepi32_ps(b[q])));
          }
        }
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

// X (f32, [m][cols]) · Wᵀ with W bf16, via bf16 pairs. k units are pairs.
struct Bf16Gemm : Bf16PairCore {
  const float* X;
  size_t ldx;
  const WeightView* w;

  // Row i of X → bf16 pairs (RNE, same rounding as f32_to_bf16); an odd
  // trailing column pairs with zero.
  const uint32_t* pack_a(size_t i0, size_t mr, size_t p0, size_t kc, uint32_t* dst) const {
    const size_t cols = w->cols, c0 = p0 * 2, cend = (p0 + kc) * 2 < cols ? (p0 + kc) * 2 : cols;
    for (size_t i = 0; i < mr; ++i) {
      const float* src = X + (i0 + i) * ldx;
      uint32_t* out = dst + i * kKC;
      for (size_t c = c0; c < cend; c += 32) {
        const size_t left = cend - c;
        const size_t np = (left + 1) / 2;  // pairs holding data
        _mm512_mask_storeu_epi32(out + (c - c0) / 2, lanes(np), row_pairs(src + c, left));
      }
    }
    return dst;
  }
  // Weight rows j0.. → dst[panel][p][32] pairs.
  void pack_b(size_t j0, size_t nc, size_t p0, size_t kc, uint32_t* dst) const {
    const size_t R = w->rows, cols = w->cols;
    const uint16_t* d = static_cast<const uint16_t*>(w->data);
    for (size_t jr = 0; jr < nc; jr += kNR, dst += kc * kNR) {
      const size_t nr = nc - jr < kNR ? nc - jr : kNR;
      if (w->layout == Layout::vnni2) {
        // Already [cols/2][rows] pairs: copy 32 consecutive rows per pair.
        const uint32_t* src32 = reinterpret_cast<const uint32_t*>(d);
        const __mmask16 m0 = lanes(nr), m1 = lanes(nr > 16 ? nr - 16 : 0);
        for (size_t p = 0; p < kc; ++p) {
          const uint32_t* s = src32 + (p0 + p) * R + j0 + jr;
          _mm512_store_si512(dst + p * kNR, _mm512_maskz_loadu_epi32(m0, s));
          _mm512_store_si512(dst + p * kNR + 16, _mm512_maskz_loadu_epi32(m1, s + 16));
        }
      } else {
        // Plain rows: 16 pairs (32 bf16) of a row per load, transposed; the
        // 16-bit mask leaves the partner of an odd last column zero.
        // The scratch holds 32-bit lanes that SIMD loads read as f32 or as bf16 pairs
        // (intrinsic types may alias); reinterpreting the bits is intended.
        // cppcheck-suppress invalidPointerCast
        float* fdst = reinterpret_cast<float*>(dst);
        pack_rows_transposed(nr, kc, fdst, [&](size_t j, size_t p, size_t) {
          const size_t c = (p0 + p) * 2;
          const size_t left = cols - c;
          const __mmask32 m = left >= 32 ? 0xffffffffu : ((1u << left) - 1u);
          return _mm512_castsi512_ps(_mm512_maskz_loadu_epi16(m, d + (j0 + jr + j) * cols + c));
        });
      }
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

// bf16 weights as pairs: vnni2 has pair (i, p) at a[p*lda + i] (lda = rows),
// plain rows (even cols) at a[i*lda + p] (lda = cols / 2); xp is [kc][32] bf16
// pairs. pf (may be null): the next weight panel (the next rows), fetched
// ahead: vnni2 one pair line per step, plain one line per row every 16 pairs.
template <int M, int NV, bool kPlain>
void kernel_wx_bf16(size_t kc, const uint32_t* a, size_t lda, const uint32_t* xp, float* y,
                    size_t ldy, size_t nt, bool accumulate, const uint32_t* pf) {
  __m512 acc0[M], acc1[M];
#pragma GCC unroll 14
  for (int i = 0; i < M; ++i) acc0[i] = acc1[i] = _mm512_setzero_ps();
  for (size_t p = 0; p < kc; ++p) {
    const __m512bh x0 = (__m512bh)_mm512_load_si512(xp + p * 32);
    const __m512bh x1 = NV > 1 ? (__m512bh)_mm512_load_si512(xp + p * 32 + 16) : x0;
    if (kPlain) {
      if (pf && (p & 15) == 0) {
#pragma GCC unroll 14
        for (int i = 0; i < int(kWxMR); ++i)
          _mm_prefetch(reinterpret_cast<const char*>(pf + i * lda + p), _MM_HINT_T0);
      }
    } else if (pf) {
      _mm_prefetch(reinterpret_cast<const char*>(pf + p * lda + kWxMR - 1), _MM_HINT_T0);
    }
#pragma GCC unroll 14
    for (int i = 0; i < M; ++i) {
      const uint32_t pair = kPlain ? a[i * lda + p] : a[p * lda + i];
      const __m512bh ai = (__m512bh)_mm512_set1_epi32(static_cast<int>(pair));
      acc0[i] = _mm512_dpbf16_ps(acc0[i], ai, x0);
      if (NV > 1) acc1[i] = _mm512_dpbf16_ps(acc1[i], ai, x1);
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
template <int M>
void kernel_wx_bf16_1(size_t kc, const uint32_t* a, size_t R, const uint32_t* xp, float* y,
                      size_t ldy, size_t nt, bool acc, const uint32_t* pf) {
  kernel_wx_bf16<M, 1, false>(kc, a, R, xp, y, ldy, nt, acc, pf);
}
template <int M>
void kernel_wx_bf16_2(size_t kc, const uint32_t* a, size_t R, const uint32_t* xp, float* y,
                      size_t ldy, size_t nt, bool acc, const uint32_t* pf) {
  kernel_wx_bf16<M, 2, false>(kc, a, R, xp, y, ldy, nt, acc, pf);
}
template <int M>
void kernel_wx_bf16p_1(size_t kc, const uint32_t* a, size_t lda, const uint32_t* xp, float* y,
                       size_t ldy, size_t nt, bool acc, const uint32_t* pf) {
  kernel_wx_bf16<M, 1, true>(kc, a, lda, xp, y, ldy, nt, acc, pf);
}
template <int M>
void kernel_wx_bf16p_2(size_t kc, const uint32_t* a, size_t lda, const uint32_t* xp, float* y,
                       size_t ldy, size_t nt, bool acc, const uint32_t* pf) {
  kernel_wx_bf16<M, 2, true>(kc, a, lda, xp, y, ldy, nt, acc, pf);
}

// X rows [0, mt) (f32, stride ldx), k units [p0, p0 + kc) → xp[panel][p][32].
// bf16: one unit is a pair of columns rounded RNE (an odd last column pairs
// with zero), the same rounding as f32_to_bf16.
void pack_x_f32(const float* X, size_t ldx, size_t mt, size_t p0, size_t kc, float* xp) {
  pack_rows_transposed(mt, kc, xp, [&](size_t j, size_t p, size_t n) {
    return _mm512_maskz_loadu_ps(lanes(n), X + j * ldx + p0 + p);
  });
}
void pack_x_bf16(const float* X, size_t ldx, size_t cols, size_t mt, size_t p0, size_t kc,
                 uint32_t* xp) {
  // The scratch holds 32-bit lanes that SIMD loads read as f32 or as bf16 pairs
  // (intrinsic types may alias); reinterpreting the bits is intended.
  // cppcheck-suppress invalidPointerCast
  pack_rows_transposed(mt, kc, reinterpret_cast<float*>(xp), [&](size_t j, size_t p, size_t) {
    const size_t c = (p0 + p) * 2, left = cols - c;  // c < cols: p indexes a real pair
    const float* src = X + j * ldx + c;
    const __m512 lo = _mm512_maskz_loadu_ps(lanes(left), src);
    const __m512 hi = _mm512_maskz_loadu_ps(lanes(left > 16 ? left - 16 : 0), src + 16);
    return _mm512_castsi512_ps((__m512i)_mm512_cvtne2ps_pbh(hi, lo));
  });
}

// Y[m][rows] = X · Wᵀ for f32 plain or (bf16 CPUs only) bf16 vnni2 or plain
// weights (plain bf16 with an even column count: every pair is one aligned
// 32-bit word of its row).
void matmul_wx(const WeightView& w, const float* X, size_t ldx, size_t m, float* Y, size_t ldy) {
  alignas(64) float xbuf[kWxKC * kWxRows];
  const bool bf16 = w.dtype == DType::bf16, plain = w.layout == Layout::plain;
  const size_t R = w.rows, cols = w.cols, units = bf16 ? (cols + 1) / 2 : cols;
  for (size_t i0 = 0; i0 < m; i0 += kWxRows) {
    const size_t mt = m - i0 < kWxRows ? m - i0 : kWxRows;
    const float* Xi = X + i0 * ldx;
    float* Yi = Y + i0 * ldy;
    for (size_t pc = 0; pc < units; pc += kWxKC) {
      const size_t kc = units - pc < kWxKC ? units - pc : kWxKC;
      const bool acc = pc > 0;
      if (bf16)
        // The scratch holds 32-bit lanes that SIMD loads read as f32 or as bf16 pairs
        // (intrinsic types may alias); reinterpreting the bits is intended.
        // cppcheck-suppress invalidPointerCast
        pack_x_bf16(Xi, ldx, cols, mt, pc, kc, reinterpret_cast<uint32_t*>(xbuf));
      else
        pack_x_f32(Xi, ldx, mt, pc, kc, xbuf);
      for (size_t r0 = 0; r0 < R; r0 += kWxMR) {
        const size_t mr = R - r0 < kWxMR ? R - r0 : kWxMR;
        for (size_t t0 = 0; t0 < mt; t0 += 32) {
          const size_t nt = mt - t0 < 32 ? mt - t0 : 32;
          float* y = Yi + t0 * ldy + r0;
          // The first activation panel pulls in the next full weight panel.
          const bool fetch = t0 == 0 && r0 + 2 * kWxMR <= R;
          if (bf16 && plain) {  // pairs of row i at a[i * cols/2 + p]
            const size_t lda = cols / 2;
            const uint32_t* a = static_cast<const uint32_t*>(w.data) + r0 * lda + pc;
            // cppcheck-suppress invalidPointerCast
            const uint32_t* xp = reinterpret_cast<const uint32_t*>(xbuf) + t0 * kc;
            const uint32_t* pf = fetch ? a + kWxMR * lda : nullptr;
            if (nt > 16) {
              AMXQA_KERNEL_SWITCH(kernel_wx_bf16p_2, mr, kc, a, lda, xp, y, ldy, nt, acc, pf)
            } else {
              AMXQA_KERNEL_SWITCH(kernel_wx_bf16p_1, mr, kc, a, lda, xp, y, ldy, nt, acc, pf)
            }
          } else if (bf16) {
            const uint32_t* a = static_cast<const uint32_t*>(w.data) + pc * R + r0;
            // The scratch holds 32-bit lanes that SIMD loads read as f32 or as bf16 pairs
            // (intrinsic types may alias); reinterpreting the bits is intended.
            // cppcheck-suppress invalidPointerCast
            const uint32_t* xp = reinterpret_cast<const uint32_t*>(xbuf) + t0 * kc;
            const uint32_t* pf = fetch ? a + kWxMR : nullptr;
            if (nt > 16) {
              AMXQA_KERNEL_SWITCH(kernel_wx_bf16_2, mr, kc, a, R, xp, y, ldy, nt, acc, pf)
            } else {
              AMXQA_KERNEL_SWITCH(kernel_wx_bf16_1, mr, kc, a, R, xp, y, ldy, nt, acc, pf)
            }
          } else {
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

inline __m512 widen_bf16(__m256i v) {
  return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(v), 16));
}

float dot_bf16(const uint16_t* row, const float* x, size_t n) {
  __m512 a0 = _mm512_setzero_ps(), a1 = _mm512_setzero_ps();
  size_t c = 0;
  for (; c + 32 <= n; c += 32) {
    a0 = _mm512_fmadd_ps(widen_bf16(_mm256_loadu_si256((const __m256i*)(row + c))),
                         _mm512_loadu_ps(x + c), a0);
    a1 = _mm512_fmadd_ps(widen_bf16(_mm256_loadu_si256((const __m256i*)(row + c + 16))),
                         _mm512_loadu_ps(x + c + 16), a1);
  }
  for (; c < n; c += 16) {
    const __mmask16 m = lanes(n - c);
    a0 = _mm512_fmadd_ps(widen_bf16(_mm256_maskz_loadu_epi16(m, row + c)),
                         _mm512_maskz_loadu_ps(m, x + c), a0);
  }
  return _mm512_reduce_add_ps(_mm512_add_ps(a0, a1));
}

inline __m512 widen_i8(__m128i v) { return _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(v)); }

float dot_i8(const int8_t* row, const float* x, size_t n) {
  __m512 a0 = _mm512_setzero_ps(), a1 = _mm512_setzero_ps();
  size_t c = 0;
  for (; c + 32 <= n; c += 32) {
    a0 = _mm512_fmadd_ps(widen_i8(_mm_loadu_si128((const __m128i*)(row + c))),
                         _mm512_loadu_ps(x + c), a0);
    a1 = _mm512_fmadd_ps(widen_i8(_mm_loadu_si128((const __m128i*)(row + c + 16))),
                         _mm512_loadu_ps(x + c + 16), a1);
  }
  for (; c < n; c += 16) {
    const __mmask16 m = lanes(n - c);
    a0 = _mm512_fmadd_ps(widen_i8(_mm_maskz_loadu_epi8(m, row + c)),
                         _mm512_maskz_loadu_ps(m, x + c), a0);
  }
  return _mm512_reduce_add_ps(_mm512_add_ps(a0, a1));
}

// One weight row of a vnni layout: its 32-bit groups sit `rows` groups apart,
// so a gather fetches 16 groups (32 bf16 or 64 i8 weights) at a time.
float dot_vnni2_row(const WeightView& w, size_t r, const float* x) {
  const int* base = static_cast<const int*>(w.data) + r;
  const size_t groups = w.cols / 2;
  const __m512i step = _mm512_mullo_epi32(_mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5,
                                                           4, 3, 2, 1, 0),
                                          _mm512_set1_epi32(static_cast<int>(w.rows)));
  const __m512i idx_even = _mm512_set_epi32(30, 28, 26, 24, 22, 20, 18, 16, 14, 12, 10, 8, 6, 4, 2, 0);
  const __m512i idx_odd = _mm512_add_epi32(idx_even, _mm512_set1_epi32(1));
  __m512 ae = _mm512_setzero_ps(), ao = _mm512_setzero_ps();
  for (size_t g = 0; g < groups; g += 16) {
    const size_t left = groups - g;
    const __mmask16 m = lanes(left);
    const __m512i v = _mm512_mask_i32gather_epi32(_mm512_setzero_si512(), m, step,
                                                  base + g * w.rows, 4);
    const __m512 x0 = _mm512_maskz_loadu_ps(lanes(2 * left), x + 2 * g);
    const __m512 x1 = _mm512_maskz_loadu_ps(lanes(left > 8 ? 2 * left - 16 : 0), x + 2 * g + 16);
    const __m512 xe = _mm512_permutex2var_ps(x0, idx_even, x1);
    const __m512 xo = _mm512_permutex2var_ps(x0, idx_odd, x1);
    ae = _mm512_fmadd_ps(_mm512_castsi512_ps(_mm512_slli_epi32(v, 16)), xe, ae);
    ao = _mm512_fmadd_ps(_mm512_castsi512_ps(_mm512_and_si512(v, _mm512_set1_epi32(0xffff0000u))),
                         xo, ao);
  }
  return _mm512_reduce_add_ps(_mm512_add_ps(ae, ao));
}

float row_dot(const WeightView& w, size_t r, const float* x) {
  const size_t n = w.cols;
  switch (w.dtype) {
    case DType::f32:
      return dot_f32(static_cast<const float*>(w.data) + r * n, x, n);
    case DType::bf16:
      if (w.layout == Layout::vnni2) return dot_vnni2_row(w, r, x);
      return dot_bf16(static_cast<const uint16_t*>(w.data) + r * n, x, n);
    case DType::i8:
      if (w.layout == Layout::vnni4) {
        const int8_t* d = static_cast<const int8_t*>(w.data);
        float acc = 0.0f;
        // NOLINTNEXTLINE(bugprone-integer-division): c / 4 is an index into the vnni4 layout.
        for (size_t c = 0; c < n; ++c) acc += static_cast<float>(d[((c / 4) * w.rows + r) * 4 + (c & 3)]) * x[c];
        return w.scales[r] * acc;
      }
      return w.scales[r] * dot_i8(static_cast<const int8_t*>(w.data) + r * n, x, n);
  }
  return 0.0f;
}

// ---------------------------------------------------------------- matvec

// vnni2 bf16: 64 output rows per pass, weights streamed in storage order
// ([pair][rows][2]), even/odd halves widened by shift / mask.
void matvec_vnni2(const WeightView& w, const float* x, float* y) {
  const uint32_t* d = static_cast<const uint32_t*>(w.data);
  const size_t R = w.rows, P = w.cols / 2;
  const __m512i hi_mask = _mm512_set1_epi32(static_cast<int>(0xffff0000u));
  for (size_t r0 = 0; r0 < R; r0 += 64) {
    const size_t left = R - r0;
    const __mmask16 m[4] = {lanes(left), lanes(left > 16 ? left - 16 : 0),
                            lanes(left > 32 ? left - 32 : 0), lanes(left > 48 ? left - 48 : 0)};
    __m512 ae[4], ao[4];
    for (int b = 0; b < 4; ++b) ae[b] = ao[b] = _mm512_setzero_ps();
    for (size_t p = 0; p < P; ++p) {
      const uint32_t* s = d + p * R + r0;
      const __m512 xe = _mm512_set1_ps(x[2 * p]), xo = _mm512_set1_ps(x[2 * p + 1]);
#pragma GCC unroll 4
      for (int b = 0; b < 4; ++b) {
        const __m512i v = _mm512_maskz_loadu_epi32(m[b], s + 16 * b);
        ae[b] = _mm512_fmadd_ps(_mm512_castsi512_ps(_mm512_slli_epi32(v, 16)), xe, ae[b]);
        ao[b] = _mm512_fmadd_ps(_mm512_castsi512_ps(_mm512_and_si512(v, hi_mask)), xo, ao[b]);
      }
    }
    for (int b = 0; b < 4; ++b) _mm512_mask_storeu_ps(y + r0 + 16 * b, m[b], _mm512_add_ps(ae[b], ao[b]));
  }
}

// vnni4 i8: 16 output rows per zmm, 32 rows per pass; byte j of each 32-bit
// group is column 4g+j, sign-extended by shift pairs.
void matvec_vnni4(const WeightView& w, const float* x, float* y) {
  const int8_t* d = static_cast<const int8_t*>(w.data);
  const size_t R = w.rows, G = w.cols / 4;
  for (size_t r0 = 0; r0 < R; r0 += 32) {
    const size_t left = R - r0;
    const __mmask16 m[2] = {lanes(left), lanes(left > 16 ? left - 16 : 0)};
    __m512 acc[2][4];
    for (int b = 0; b < 2; ++b)
      for (int j = 0; j < 4; ++j) acc[b][j] = _mm512_setzero_ps();
    for (size_t g = 0; g < G; ++g) {
      const int8_t* s = d + (g * R + r0) * 4;
      const __m512 x0 = _mm512_set1_ps(x[4 * g]), x1 = _mm512_set1_ps(x[4 * g + 1]);
      const __m512 x2 = _mm512_set1_ps(x[4 * g + 2]), x3 = _mm512_set1_ps(x[4 * g + 3]);
      for (int b = 0; b < 2; ++b) {
        const __m512i v = _mm512_maskz_loadu_epi32(m[b], s + 64 * b);
        acc[b][0] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(_mm512_srai_epi32(_mm512_slli_epi32(v, 24), 24)), x0, acc[b][0]);
        acc[b][1] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(_mm512_srai_epi32(_mm512_slli_epi32(v, 16), 24)), x1, acc[b][1]);
        acc[b][2] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(_mm512_srai_epi32(_mm512_slli_epi32(v, 8), 24)), x2, acc[b][2]);
        acc[b][3] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(_mm512_srai_epi32(v, 24)), x3, acc[b][3]);
      }
    }
    for (int b = 0; b < 2; ++b) {
      const __m512 sum = _mm512_add_ps(_mm512_add_ps(acc[b][0], acc[b][1]), _mm512_add_ps(acc[b][2], acc[b][3]));
      const __m512 sc = _mm512_maskz_loadu_ps(m[b], w.scales + r0 + 16 * b);
      _mm512_mask_storeu_ps(y + r0 + 16 * b, m[b], _mm512_mul_ps(sum, sc));
    }
  }
}

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

void matvec_avx512(const WeightView& w, const float* x, float* y) {
  if (w.dtype == DType::bf16 && w.layout == Layout::vnni2) return matvec_vnni2(w, x, y);
  if (w.dtype == DType::i8 && w.layout == Layout::vnni4) return matvec_vnni4(w, x, y);
  if (w.dtype == DType::f32) return matvec_f32(w, x, y);
  for (size_t r = 0; r < w.rows; ++r) y[r] = row_dot(w, r, x);
}

void rows_dot_avx512(const WeightView& w, const uint32_t* ids, size_t n, const float* x,
                     float* out) {
  for (size_t i = 0; i < n; ++i) out[i] = row_dot(w, ids[i], x);
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
      if (cpu_has_bf16()) {
        // Weight-stationary: plain rows are broadcast in place, never repacked.
        if (w.layout == Layout::vnni2 || w.cols % 2 == 0) return matmul_wx(w, X, ldx, m, Y, ldy);
        const Bf16Gemm g{{}, X, ldx, &w};
        return gemm_blocked(g, m, w.rows, (w.cols + 1) / 2, 1.0f, 0.0f, Y, ldy);
      }
      break;
    case DType::i8:
      break;
  }
  matmul_avx512_widened(w, X, ldx, m, Y, ldy);
}

const Kernels kAvx512 = {"avx512",        matvec_avx512,  matmul_avx512, rows_dot_avx512,
                         dot_rows_avx512, softmax_avx512, sgemm_avx512};

}  // namespace

void matmul_avx512_widened(const WeightView& w, const float* X, size_t ldx, size_t m, float* Y,
                           size_t ldy) {
  if (m == 0 || w.rows == 0) return;
  if (w.cols == 0) return gemm_scale_only(m, w.rows, 0.0f, Y, ldy);
  if (w.dtype == DType::f32)  // already f32: nothing to widen
    return sgemm_avx512(false, true, m, w.rows, w.cols, 1.0f, X, ldx,
                        static_cast<const float*>(w.data), w.cols, 0.0f, Y, ldy);
  const F32Gemm<PackBWeightF32> g{{X, ldx, false}, {&w}};
  gemm_blocked(g, m, w.rows, w.cols, 1.0f, 0.0f, Y, ldy);
}

const Kernels* kernels_avx512() { return &kAvx512; }

}  // namespace amxqa
