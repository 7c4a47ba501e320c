// train_simd_avx2.cpp — the AVX2+FMA bodies of train_simd.h (see
// train_simd_isa.h): 8 lanes, a row's tail through masked loads and stores
// (inactive lanes read as 0), the same math as the portable bodies.
#include <immintrin.h>

#include <cmath>

#include "model/train_simd_isa.h"

namespace amxqa::train::simd {
namespace {

#define AVX2 __attribute__((target("avx2,fma")))

// The first `left` lanes (all 8 when left >= 8).
AVX2 inline __m256i lanes(size_t left) {
  const int k = left >= 8 ? 8 : static_cast<int>(left);
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(k), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}
AVX2 inline __m256 load(const float* p, __m256i m) { return _mm256_maskload_ps(p, m); }
AVX2 inline void store(float* p, __m256i m, __m256 x) { _mm256_maskstore_ps(p, m, x); }

AVX2 inline float hsum(__m256 v) {
  __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  s = _mm_add_ps(s, _mm_movehl_ps(s, s));
  return _mm_cvtss_f32(_mm_add_ss(s, _mm_movehdup_ps(s)));
}

AVX2 inline float hmax(__m256 v) {
  __m128 s = _mm_max_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  s = _mm_max_ps(s, _mm_movehl_ps(s, s));
  return _mm_cvtss_f32(_mm_max_ss(s, _mm_movehdup_ps(s)));
}

AVX2 inline __m256 relu2_backward8(__m256 x, __m256 g) {
  const __m256 pos = _mm256_cmp_ps(x, _mm256_setzero_ps(), _CMP_GT_OQ);
  return _mm256_and_ps(pos, _mm256_mul_ps(_mm256_mul_ps(_mm256_set1_ps(2.f), x), g));
}

AVX2 void relu2_backward(const float* pre, float* dact, size_t n) {
  size_t i = 0;
  for (; i + 8 <= n; i += 8)
    _mm256_storeu_ps(dact + i, relu2_backward8(_mm256_loadu_ps(pre + i), _mm256_loadu_ps(dact + i)));
  if (i < n) {
    const __m256i m = lanes(n - i);
    store(dact + i, m, relu2_backward8(load(pre + i, m), load(dact + i, m)));
  }
}

// e^x for x ≤ 0, as train_simd_avx512.cpp's exp_avx512 (Cephes expf's
// polynomial, about 1 ulp); 2^k is applied as two normal powers of two so
// that results down to e^-104 underflow gradually, as expf's do.
AVX2 inline __m256 exp8(__m256 x) {
  x = _mm256_max_ps(x, _mm256_set1_ps(-104.f));
  const __m256 k = _mm256_round_ps(_mm256_mul_ps(x, _mm256_set1_ps(1.44269504088896341f)),
                                   _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m256 r = _mm256_fnmadd_ps(k, _mm256_set1_ps(0.693359375f), x);
  r = _mm256_fnmadd_ps(k, _mm256_set1_ps(-2.12194440e-4f), r);
  __m256 y = _mm256_set1_ps(1.9875691500e-4f);
  y = _mm256_fmadd_ps(y, r, _mm256_set1_ps(1.3981999507e-3f));
  y = _mm256_fmadd_ps(y, r, _mm256_set1_ps(8.3334519073e-3f));
  y = _mm256_fmadd_ps(y, r, _mm256_set1_ps(4.1665795894e-2f));
  y = _mm256_fmadd_ps(y, r, _mm256_set1_ps(1.6666665459e-1f));
  y = _mm256_fmadd_ps(y, r, _mm256_set1_ps(5.0000001201e-1f));
  y = _mm256_fmadd_ps(y, _mm256_mul_ps(r, r), _mm256_add_ps(r, _mm256_set1_ps(1.f)));
  const __m256i ki = _mm256_cvtps_epi32(k);     // in [-150, 151]
  const __m256i k1 = _mm256_srai_epi32(ki, 1);  // each half in [-75, 76]: normal
  const __m256i k2 = _mm256_sub_epi32(ki, k1);
  const __m256i bias = _mm256_set1_epi32(127);
  const __m256 p1 = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(k1, bias), 23));
  const __m256 p2 = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(k2, bias), 23));
  return _mm256_mul_ps(_mm256_mul_ps(y, p1), p2);
}

AVX2 void softmax(float* x, size_t n) {
  const __m256 neg_inf = _mm256_set1_ps(-INFINITY);
  __m256 mx = neg_inf;
  for (size_t i = 0; i < n; i += 8) {
    const __m256i m = lanes(n - i);
    mx = _mm256_max_ps(mx, _mm256_blendv_ps(neg_inf, load(x + i, m), _mm256_castsi256_ps(m)));
  }
  const __m256 vmax = _mm256_set1_ps(hmax(mx));
  __m256 sum = _mm256_setzero_ps();
  for (size_t i = 0; i < n; i += 8) {
    const __m256i m = lanes(n - i);
    const __m256 e = _mm256_and_ps(_mm256_castsi256_ps(m), exp8(_mm256_sub_ps(load(x + i, m), vmax)));
    store(x + i, m, e);
    sum = _mm256_add_ps(sum, e);
  }
  const __m256 inv = _mm256_set1_ps(1.f / hsum(sum));
  size_t i = 0;
  for (; i + 8 <= n; i += 8) _mm256_storeu_ps(x + i, _mm256_mul_ps(_mm256_loadu_ps(x + i), inv));
  if (i < n) {
    const __m256i m = lanes(n - i);
    store(x + i, m, _mm256_mul_ps(load(x + i, m), inv));
  }
}

// Σ a_i·b_i over [0, n), two accumulators.
AVX2 inline float dot(const float* a, const float* b, size_t n) {
  __m256 s0 = _mm256_setzero_ps(), s1 = _mm256_setzero_ps();
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    s0 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i), s0);
    s1 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i + 8), _mm256_loadu_ps(b + i + 8), s1);
  }
  for (; i < n; i += 8) {
    const __m256i m = lanes(n - i);
    s0 = _mm256_fmadd_ps(load(a + i, m), load(b + i, m), s0);
  }
  return hsum(_mm256_add_ps(s0, s1));
}

AVX2 void softmax_backward(const float* p, float* ds, size_t n, float scale) {
  const __m256 sum = _mm256_set1_ps(dot(p, ds, n)), vscale = _mm256_set1_ps(scale);
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256 d = _mm256_sub_ps(_mm256_loadu_ps(ds + i), sum);
    _mm256_storeu_ps(ds + i, _mm256_mul_ps(_mm256_mul_ps(_mm256_loadu_ps(p + i), d), vscale));
  }
  if (i < n) {
    const __m256i m = lanes(n - i);
    const __m256 d = _mm256_sub_ps(load(ds + i, m), sum);
    store(ds + i, m, _mm256_mul_ps(_mm256_mul_ps(load(p + i, m), d), vscale));
  }
}

// dv accumulates in dv itself (any hd; a head's row stays in L1).
AVX2 float lin_step_backward(float* dS, const float* S, const float* Sprev, const float* q,
                             const float* k, const float* v, const float* dO, float anext,
                             float c, size_t dk, size_t hd, float* dq, float* dkv, float* dv) {
  for (size_t i = 0; i < hd; ++i) dv[i] = 0.f;
  const __m256 an = _mm256_set1_ps(anext);
  __m256 da = _mm256_setzero_ps();
  for (size_t r = 0; r < dk; ++r) {
    float* row = dS + r * hd;
    const float* srow = S + r * hd;
    const float* prow = Sprev ? Sprev + r * hd : nullptr;
    const __m256 cq = _mm256_set1_ps(c * q[r]), kr = _mm256_set1_ps(k[r]);
    __m256 sq = _mm256_setzero_ps(), sk = _mm256_setzero_ps();
    for (size_t i = 0; i < hd; i += 8) {
      const __m256i m = lanes(hd - i);
      const __m256 vdo = load(dO + i, m);
      const __m256 x = _mm256_fmadd_ps(cq, vdo, _mm256_mul_ps(an, load(row + i, m)));
      store(row + i, m, x);
      sq = _mm256_fmadd_ps(load(srow + i, m), vdo, sq);
      sk = _mm256_fmadd_ps(x, load(v + i, m), sk);
      store(dv + i, m, _mm256_fmadd_ps(x, kr, load(dv + i, m)));
      if (prow) da = _mm256_fmadd_ps(x, load(prow + i, m), da);
    }
    dq[r] = c * hsum(sq);
    dkv[r] = hsum(sk);
  }
  return hsum(da);
}

AVX2 void adamw(float* w, float* m, float* v, const float* g, size_t n, float gscale, float b1,
                float b2, float lr, float decay, float bc1, float bc2, float eps) {
  const __m256 vb1 = _mm256_set1_ps(b1), vb1c = _mm256_set1_ps(1.f - b1);
  const __m256 vb2 = _mm256_set1_ps(b2), vb2c = _mm256_set1_ps(1.f - b2);
  const __m256 vgs = _mm256_set1_ps(gscale), vdec = _mm256_set1_ps(decay);
  const __m256 vlr = _mm256_set1_ps(lr), vibc1 = _mm256_set1_ps(1.f / bc1);
  const __m256 vibc2 = _mm256_set1_ps(1.f / bc2), veps = _mm256_set1_ps(eps);
  for (size_t i = 0; i < n; i += 8) {
    const __m256i k = lanes(n - i);
    const __m256 gi = _mm256_mul_ps(load(g + i, k), vgs);
    const __m256 mi = _mm256_fmadd_ps(vb1, load(m + i, k), _mm256_mul_ps(vb1c, gi));
    const __m256 vi = _mm256_fmadd_ps(vb2, load(v + i, k), _mm256_mul_ps(vb2c, _mm256_mul_ps(gi, gi)));
    const __m256 den = _mm256_add_ps(_mm256_sqrt_ps(_mm256_mul_ps(vi, vibc2)), veps);
    const __m256 upd = _mm256_div_ps(_mm256_mul_ps(mi, vibc1), den);
    const __m256 wi = _mm256_fnmadd_ps(vlr, upd, _mm256_mul_ps(load(w + i, k), vdec));
    store(m + i, k, mi);
    store(v + i, k, vi);
    store(w + i, k, wi);
  }
}

AVX2 double sum_squares(const float* g, size_t n) {
  __m256d s0 = _mm256_setzero_pd(), s1 = _mm256_setzero_pd();
  for (size_t i = 0; i < n; i += 8) {
    const __m256 x = load(g + i, lanes(n - i));
    const __m256d lo = _mm256_cvtps_pd(_mm256_castps256_ps128(x));
    const __m256d hi = _mm256_cvtps_pd(_mm256_extractf128_ps(x, 1));
    s0 = _mm256_fmadd_pd(lo, lo, s0);
    s1 = _mm256_fmadd_pd(hi, hi, s1);
  }
  const __m256d s = _mm256_add_pd(s0, s1);
  const __m128d h = _mm_add_pd(_mm256_castpd256_pd128(s), _mm256_extractf128_pd(s, 1));
  return _mm_cvtsd_f64(_mm_add_sd(h, _mm_unpackhi_pd(h, h)));
}

AVX2 void rmsnorm_backward(const float* x, const float* g, float inv, const float* dy, size_t n,
                           float* dx, float* dg) {
  const __m256 one = _mm256_set1_ps(1.f), vinv = _mm256_set1_ps(inv);
  __m256 s = _mm256_setzero_ps();
  for (size_t i = 0; i < n; i += 8) {
    const __m256i m = lanes(n - i);
    const __m256 gi = g ? load(g + i, m) : one;
    const __m256 xi = load(x + i, m), di = load(dy + i, m);
    s = _mm256_fmadd_ps(_mm256_mul_ps(gi, di), xi, s);
    if (dg) store(dg + i, m, _mm256_fmadd_ps(_mm256_mul_ps(di, xi), vinv, load(dg + i, m)));
  }
  const __m256 c = _mm256_set1_ps(inv * inv * inv * hsum(s) / static_cast<float>(n));
  for (size_t i = 0; i < n; i += 8) {
    const __m256i m = lanes(n - i);
    const __m256 gi = g ? load(g + i, m) : one;
    const __m256 xi = load(x + i, m), di = load(dy + i, m);
    const __m256 t = _mm256_fnmadd_ps(xi, c, _mm256_mul_ps(vinv, _mm256_mul_ps(gi, di)));
    store(dx + i, m, _mm256_add_ps(load(dx + i, m), t));
  }
}

}  // namespace

const Bodies& avx2_bodies() {
  static const Bodies b{relu2_backward, softmax,  softmax_backward, lin_step_backward,
                        adamw,          rmsnorm_backward, sum_squares};
  return b;
}

}  // namespace amxqa::train::simd
