// train_simd.cpp — see train_simd.h. The portable bodies, and each entry point
// dispatched to one table of train_simd_isa.h, chosen once under the trainer's
// ISA (train_isa(), capped by AMXQA_MAX_ISA): AVX-512 on AVX-512 and AMX
// machines, AVX2+FMA on AVX2 ones, else the portable table.
#include "model/train_simd.h"

#include <cmath>

#include "model/train_model.h"
#include "model/train_simd_isa.h"
#include "ops/ops.h"

namespace amxqa::train::simd {
namespace {

float dot_scalar(const float* a, const float* b, size_t n) {
  float s[4] = {0, 0, 0, 0};
  size_t i = 0;
  for (; i + 4 <= n; i += 4)
    for (int l = 0; l < 4; ++l) s[l] += a[i + l] * b[i + l];
  for (; i < n; ++i) s[0] += a[i] * b[i];
  return (s[0] + s[1]) + (s[2] + s[3]);
}

void softmax_backward_scalar(const float* p, float* ds, size_t n, float scale) {
  const float sum = dot_scalar(p, ds, n);
  for (size_t i = 0; i < n; ++i) ds[i] = p[i] * (ds[i] - sum) * scale;
}

float lin_step_backward_scalar(float* dS, const float* S, const float* Sprev, const float* q,
                               const float* k, const float* v, const float* dO, float anext,
                               float c, size_t dk, size_t hd, float* dq, float* dkv, float* dv) {
  for (size_t i = 0; i < hd; ++i) dv[i] = 0.f;
  float da = 0.f;
  for (size_t r = 0; r < dk; ++r) {
    float* row = dS + r * hd;
    const float cq = c * q[r];
    for (size_t i = 0; i < hd; ++i) {
      row[i] = anext * row[i] + cq * dO[i];
      dv[i] += row[i] * k[r];
    }
    dq[r] = c * dot_scalar(S + r * hd, dO, hd);
    dkv[r] = dot_scalar(row, v, hd);
    if (Sprev) da += dot_scalar(row, Sprev + r * hd, hd);
  }
  return da;
}

void adamw_scalar(float* w, float* m, float* v, const float* g, size_t n, float gscale, float b1,
                  float b2, float lr, float decay, float bc1, float bc2, float eps) {
  const float ibc1 = 1.f / bc1, ibc2 = 1.f / bc2;
  for (size_t i = 0; i < n; ++i) {
    const float gi = g[i] * gscale;
    m[i] = b1 * m[i] + (1.f - b1) * gi;
    v[i] = b2 * v[i] + (1.f - b2) * (gi * gi);
    w[i] = w[i] * decay - lr * ((m[i] * ibc1) / (std::sqrt(v[i] * ibc2) + eps));
  }
}

void rmsnorm_backward_scalar(const float* x, const float* g, float inv, const float* dy, size_t n,
                             float* dx, float* dg) {
  float s = 0.f;
  for (size_t i = 0; i < n; ++i) s += (g ? g[i] * dy[i] : dy[i]) * x[i];
  if (dg)
    for (size_t i = 0; i < n; ++i) dg[i] += dy[i] * x[i] * inv;
  const float c = inv * inv * inv * s / static_cast<float>(n);
  for (size_t i = 0; i < n; ++i) dx[i] += inv * (g ? g[i] * dy[i] : dy[i]) - x[i] * c;
}

void relu2_backward_scalar(const float* pre, float* dact, size_t n) {
  for (size_t i = 0; i < n; ++i) dact[i] = pre[i] > 0.f ? 2.f * pre[i] * dact[i] : 0.f;
}

void softmax_scalar(float* x, size_t n) { ops::softmax(x, n); }

double sum_squares_scalar(const float* g, size_t n) {
  double s = 0;
  for (size_t i = 0; i < n; ++i) s += double(g[i]) * g[i];
  return s;
}

const Bodies& bodies() {
  static const Bodies& b = train_isa() >= AMXQA_ISA_AVX512 ? avx512_bodies()
                           : train_isa() >= AMXQA_ISA_AVX2 ? avx2_bodies()
                                                           : scalar_bodies();
  return b;
}

}  // namespace

const Bodies& scalar_bodies() {
  static const Bodies b{relu2_backward_scalar, softmax_scalar,      softmax_backward_scalar,
                        lin_step_backward_scalar, adamw_scalar,     rmsnorm_backward_scalar,
                        sum_squares_scalar};
  return b;
}

void relu2_backward(const float* pre, float* dact, size_t n) { bodies().relu2_backward(pre, dact, n); }

void softmax(float* x, size_t n) { bodies().softmax(x, n); }

void softmax_backward(const float* p, float* ds, size_t n, float scale) {
  bodies().softmax_backward(p, ds, n, scale);
}

float lin_step_backward(float* dS, const float* S, const float* Sprev, const float* q,
                        const float* k, const float* v, const float* dO, float anext, float c,
                        size_t dk, size_t hd, float* dq, float* dkv, float* dv) {
  return bodies().lin_step_backward(dS, S, Sprev, q, k, v, dO, anext, c, dk, hd, dq, dkv, dv);
}

void adamw(float* w, float* m, float* v, const float* g, size_t n, float gscale, float b1,
           float b2, float lr, float decay, float bc1, float bc2, float eps) {
  bodies().adamw(w, m, v, g, n, gscale, b1, b2, lr, decay, bc1, bc2, eps);
}

void rmsnorm_backward(const float* x, const float* g, float inv, const float* dy, size_t n,
                      float* dx, float* dg) {
  bodies().rmsnorm_backward(x, g, inv, dy, n, dx, dg);
}

double sum_squares(const float* g, size_t n) { return bodies().sum_squares(g, n); }

}  // namespace amxqa::train::simd
