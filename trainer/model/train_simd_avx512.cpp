// train_simd_avx512.cpp — the AVX-512 bodies of train_simd.h (see
// train_simd_isa.h): 16 lanes, a row's tail under a mask.
#include <immintrin.h>

// GCC 12 reports its own masked-load intrinsics as reading uninitialised values.
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

#include <cmath>

#include "model/train_simd_isa.h"

namespace amxqa::train::simd {
namespace {

#define AVX512 __attribute__((target("avx512f,fma")))

// Masked load/store of the tail of a row.
AVX512 inline __mmask16 tail_mask(size_t left) {
  return left >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << left) - 1u);
}

AVX512 void relu2_backward_avx512(const float* pre, float* dact, size_t n) {
  const __m512 two = _mm512_set1_ps(2.f), zero = _mm512_setzero_ps();
  for (size_t i = 0; i < n; i += 16) {
    const __mmask16 m = tail_mask(n - i);
    const __m512 x = _mm512_maskz_loadu_ps(m, pre + i);
    const __m512 g = _mm512_maskz_loadu_ps(m, dact + i);
    const __mmask16 pos = _mm512_cmp_ps_mask(x, zero, _CMP_GT_OQ);
    _mm512_mask_storeu_ps(dact + i, m, _mm512_maskz_mul_ps(pos, _mm512_mul_ps(two, x), g));
  }
}

// e^x for x ≤ 0 (softmax arguments): e^x = 2^k·e^r with k = round(x·log2 e),
// r = x − k·ln 2 (ln 2 split in two for exactness), e^r by Cephes expf's
// polynomial (about 1 ulp). scalef underflows to 0 the way expf does.
AVX512 inline __m512 exp_avx512(__m512 x) {
  x = _mm512_max_ps(x, _mm512_set1_ps(-104.f));  // e^-104 is 0 in float; keeps r finite
  const __m512 k = _mm512_roundscale_ps(_mm512_mul_ps(x, _mm512_set1_ps(1.44269504088896341f)),
                                        _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m512 r = _mm512_fnmadd_ps(k, _mm512_set1_ps(0.693359375f), x);
  r = _mm512_fnmadd_ps(k, _mm512_set1_ps(-2.12194440e-4f), r);
  __m512 y = _mm512_set1_ps(1.9875691500e-4f);
  y = _mm512_fmadd_ps(y, r, _mm512_set1_ps(1.3981999507e-3f));
  y = _mm512_fmadd_ps(y, r, _mm512_set1_ps(8.3334519073e-3f));
  y = _mm512_fmadd_ps(y, r, _mm512_set1_ps(4.1665795894e-2f));
  y = _mm512_fmadd_ps(y, r, _mm512_set1_ps(1.6666665459e-1f));
  y = _mm512_fmadd_ps(y, r, _mm512_set1_ps(5.0000001201e-1f));
  y = _mm512_fmadd_ps(y, _mm512_mul_ps(r, r), _mm512_add_ps(r, _mm512_set1_ps(1.f)));
  return _mm512_scalef_ps(y, k);
}

AVX512 void softmax_avx512(float* x, size_t n) {
  const __m512 neg_inf = _mm512_set1_ps(-INFINITY);
  __m512 mx = neg_inf;
  for (size_t i = 0; i < n; i += 16)
    mx = _mm512_max_ps(mx, _mm512_mask_loadu_ps(neg_inf, tail_mask(n - i), x + i));
  const __m512 vmax = _mm512_set1_ps(_mm512_reduce_max_ps(mx));
  __m512 sum = _mm512_setzero_ps();
  for (size_t i = 0; i < n; i += 16) {
    const __mmask16 m = tail_mask(n - i);
    const __m512 e = exp_avx512(_mm512_sub_ps(_mm512_maskz_loadu_ps(m, x + i), vmax));
    _mm512_mask_storeu_ps(x + i, m, e);
    sum = _mm512_mask_add_ps(sum, m, sum, e);
  }
  const __m512 inv = _mm512_set1_ps(1.f / _mm512_reduce_add_ps(sum));
  for (size_t i = 0; i < n; i += 16) {
    const __mmask16 m = tail_mask(n - i);
    _mm512_mask_storeu_ps(x + i, m, _mm512_mul_ps(_mm512_maskz_loadu_ps(m, x + i), inv));
  }
}

AVX512 void softmax_backward_avx512(const float* p, float* ds, size_t n, float scale) {
  __m512 s = _mm512_setzero_ps();
  for (size_t i = 0; i < n; i += 16) {
    const __mmask16 m = tail_mask(n - i);
    s = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(m, p + i), _mm512_maskz_loadu_ps(m, ds + i), s);
  }
  const __m512 sum = _mm512_set1_ps(_mm512_reduce_add_ps(s)), vscale = _mm512_set1_ps(scale);
  for (size_t i = 0; i < n; i += 16) {
    const __mmask16 m = tail_mask(n - i);
    const __m512 d = _mm512_sub_ps(_mm512_maskz_loadu_ps(m, ds + i), sum);
    _mm512_mask_storeu_ps(ds + i, m,
                          _mm512_mul_ps(_mm512_mul_ps(_mm512_maskz_loadu_ps(m, p + i), d), vscale));
  }
}

AVX512 float lin_step_backward_avx512(float* dS, const float* S, const float* Sprev,
                                      const float* q, const float* k, const float* v,
                                      const float* dO, float anext, float c, size_t dk,
                                      size_t hd, float* dq, float* dkv, float* dv) {
  const size_t nv = (hd + 15) / 16;
  __m512 vdo[4], vv[4], accv[4];
  __mmask16 mk[4];
  for (size_t i = 0; i < nv; ++i) {
    mk[i] = tail_mask(hd - i * 16);
    vdo[i] = _mm512_maskz_loadu_ps(mk[i], dO + i * 16);
    vv[i] = _mm512_maskz_loadu_ps(mk[i], v + i * 16);
    accv[i] = _mm512_setzero_ps();
  }
  const __m512 an = _mm512_set1_ps(anext);
  __m512 da = _mm512_setzero_ps();
  for (size_t r = 0; r < dk; ++r) {
    float* row = dS + r * hd;
    const float* srow = S + r * hd;
    const __m512 cq = _mm512_set1_ps(c * q[r]), kr = _mm512_set1_ps(k[r]);
    __m512 sq = _mm512_setzero_ps(), sk = _mm512_setzero_ps();
    for (size_t i = 0; i < nv; ++i) {
      __m512 x = _mm512_maskz_loadu_ps(mk[i], row + i * 16);
      x = _mm512_fmadd_ps(cq, vdo[i], _mm512_mul_ps(an, x));
      _mm512_mask_storeu_ps(row + i * 16, mk[i], x);
      sq = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(mk[i], srow + i * 16), vdo[i], sq);
      sk = _mm512_fmadd_ps(x, vv[i], sk);
      accv[i] = _mm512_fmadd_ps(x, kr, accv[i]);
      if (Sprev) da = _mm512_fmadd_ps(x, _mm512_maskz_loadu_ps(mk[i], Sprev + r * hd + i * 16), da);
    }
    dq[r] = c * _mm512_reduce_add_ps(sq);
    dkv[r] = _mm512_reduce_add_ps(sk);
  }
  for (size_t i = 0; i < nv; ++i) _mm512_mask_storeu_ps(dv + i * 16, mk[i], accv[i]);
  return _mm512_reduce_add_ps(da);
}

AVX512 void adamw_avx512(float* w, float* m, float* v, const float* g, size_t n, float gscale,
                         float b1, float b2, float lr, float decay, float bc1, float bc2,
                         float eps) {
  const __m512 vb1 = _mm512_set1_ps(b1), vb1c = _mm512_set1_ps(1.f - b1);
  const __m512 vb2 = _mm512_set1_ps(b2), vb2c = _mm512_set1_ps(1.f - b2);
  const __m512 vgs = _mm512_set1_ps(gscale), vdec = _mm512_set1_ps(decay);
  const __m512 vlr = _mm512_set1_ps(lr), vibc1 = _mm512_set1_ps(1.f / bc1);
  const __m512 vibc2 = _mm512_set1_ps(1.f / bc2), veps = _mm512_set1_ps(eps);
  for (size_t i = 0; i < n; i += 16) {
    const __mmask16 k = tail_mask(n - i);
    const __m512 gi = _mm512_mul_ps(_mm512_maskz_loadu_ps(k, g + i), vgs);
    const __m512 mi = _mm512_fmadd_ps(vb1, _mm512_maskz_loadu_ps(k, m + i), _mm512_mul_ps(vb1c, gi));
    const __m512 vi = _mm512_fmadd_ps(vb2, _mm512_maskz_loadu_ps(k, v + i),
                                      _mm512_mul_ps(vb2c, _mm512_mul_ps(gi, gi)));
    const __m512 den = _mm512_add_ps(_mm512_sqrt_ps(_mm512_mul_ps(vi, vibc2)), veps);
    const __m512 upd = _mm512_div_ps(_mm512_mul_ps(mi, vibc1), den);
    const __m512 wi = _mm512_fnmadd_ps(vlr, upd, _mm512_mul_ps(_mm512_maskz_loadu_ps(k, w + i), vdec));
    _mm512_mask_storeu_ps(m + i, k, mi);
    _mm512_mask_storeu_ps(v + i, k, vi);
    _mm512_mask_storeu_ps(w + i, k, wi);
  }
}

AVX512 double sum_squares_avx512(const float* g, size_t n) {
  __m512d s0 = _mm512_setzero_pd(), s1 = _mm512_setzero_pd();
  for (size_t i = 0; i < n; i += 16) {
    const __m512 x = _mm512_maskz_loadu_ps(tail_mask(n - i), g + i);
    const __m512d lo = _mm512_cvtps_pd(_mm512_castps512_ps256(x));
    const __m512d hi = _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(x), 1)));
    s0 = _mm512_fmadd_pd(lo, lo, s0);
    s1 = _mm512_fmadd_pd(hi, hi, s1);
  }
  return _mm512_reduce_add_pd(_mm512_add_pd(s0, s1));
}

AVX512 void rmsnorm_backward_avx512(const float* x, const float* g, float inv, const float* dy,
                                    size_t n, float* dx, float* dg) {
  const __m512 one = _mm512_set1_ps(1.f), vinv = _mm512_set1_ps(inv);
  __m512 s = _mm512_setzero_ps();
  for (size_t i = 0; i < n; i += 16) {
    const __mmask16 m = tail_mask(n - i);
    const __m512 gi = g ? _mm512_maskz_loadu_ps(m, g + i) : one;
    const __m512 xi = _mm512_maskz_loadu_ps(m, x + i), di = _mm512_maskz_loadu_ps(m, dy + i);
    s = _mm512_fmadd_ps(_mm512_mul_ps(gi, di), xi, s);
    if (dg)
      _mm512_mask_storeu_ps(dg + i, m, _mm512_fmadd_ps(_mm512_mul_ps(di, xi), vinv,
                                                       _mm512_maskz_loadu_ps(m, dg + i)));
  }
  const __m512 c = _mm512_set1_ps(inv * inv * inv * _mm512_reduce_add_ps(s) / static_cast<float>(n));
  for (size_t i = 0; i < n; i += 16) {
    const __mmask16 m = tail_mask(n - i);
    const __m512 gi = g ? _mm512_maskz_loadu_ps(m, g + i) : one;
    const __m512 xi = _mm512_maskz_loadu_ps(m, x + i), di = _mm512_maskz_loadu_ps(m, dy + i);
    const __m512 t = _mm512_fnmadd_ps(xi, c, _mm512_mul_ps(vinv, _mm512_mul_ps(gi, di)));
    _mm512_mask_storeu_ps(dx + i, m, _mm512_add_ps(_mm512_maskz_loadu_ps(m, dx + i), t));
  }
}

// The body keeps a head's dv row in four registers; wider heads take the
// portable body.
float lin_step_backward_any(float* dS, const float* S, const float* Sprev, const float* q,
                            const float* k, const float* v, const float* dO, float anext, float c,
                            size_t dk, size_t hd, float* dq, float* dkv, float* dv) {
  if (hd <= 64)
    return lin_step_backward_avx512(dS, S, Sprev, q, k, v, dO, anext, c, dk, hd, dq, dkv, dv);
  return scalar_bodies().lin_step_backward(dS, S, Sprev, q, k, v, dO, anext, c, dk, hd, dq, dkv, dv);
}

}  // namespace

const Bodies& avx512_bodies() {
  static const Bodies b{relu2_backward_avx512, softmax_avx512,      softmax_backward_avx512,
                        lin_step_backward_any, adamw_avx512,        rmsnorm_backward_avx512,
                        sum_squares_avx512};
  return b;
}

}  // namespace amxqa::train::simd
