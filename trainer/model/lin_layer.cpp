// lin_layer.cpp — MODEL.md "lin": gated linear attention with a per-head scalar
// decay a = exp(−softplus(wa·u + ba)), state S ← a S + k vᵀ, o = Sᵀq/sqrt(dk),
// then a per-head RMS norm without gain. Forward steps through ops::lin_step and
// keeps every state S_t (H·dk·hd floats per position) so the backward pass can
// run the recurrence in reverse without dividing by a.
#include <cmath>
#include <cstring>

#include "model/train_impl.h"
#include "model/train_simd.h"
#include "ops/ops.h"

namespace amxqa::train {
namespace {

// q, k, v and the decay logits z all read u: one stacked GEMM.
Stacked stacked_qkva(const ArchConfig& a, std::vector<Param>& P, const LayerIdx& L) {
  Stacked s;
  s.count = 4;
  const int idx[4] = {L.wq, L.wk, L.wv, L.wa};
  const size_t H = a.n_heads;
  const size_t rows[4] = {H * a.lin_state, H * a.lin_state, H * a.head_dim, H};
  for (int i = 0; i < 4; ++i) {
    s.w[i] = P[idx[i]].w.data();
    s.g[i] = P[idx[i]].g.data();
    s.rows[i] = rows[i];
  }
  return s;
}

}  // namespace

void lin_forward(const ArchConfig& a, std::vector<Param>& P, const LayerIdx& L, LayerActs& A,
                 Work& im, size_t n, float* out) {
  const size_t d = a.d_model, H = a.n_heads, dk = a.lin_state, hd = a.head_dim;
  const size_t qd = H * dk, vd = H * hd, sz = dk * hd;
  float* q = grow(A.q, n * qd);
  float* k = grow(A.k, n * qd);
  float* v = grow(A.vv, n * vd);
  float* o = grow(A.o, n * vd);
  float* z = grow(A.z, n * H);
  float* dec = grow(A.a, n * H);
  float* S = grow(A.S, n * H * sz);
  float* oinv = grow(A.oinv, n * H);
  const float* u = A.u.data();
  float* const outs[4] = {q, k, v, z};
  stacked_forward(im, stacked_qkva(a, P, L), u, n, d, outs);
  const float* ba = P[L.ba].w.data();
  for (size_t p = 0; p < n; ++p)
    for (size_t h = 0; h < H; ++h) {
      z[p * H + h] += ba[h];
      dec[p * H + h] = ops::lin_decay(z[p * H + h]);
    }
  for (size_t p = 0; p < n; ++p)
    for (size_t h = 0; h < H; ++h) {
      float* St = S + (p * H + h) * sz;
      if (p == 0)
        std::memset(St, 0, sz * sizeof(float));
      else
        std::memcpy(St, S + ((p - 1) * H + h) * sz, sz * sizeof(float));
      float* oh = o + p * vd + h * hd;
      ops::lin_step(St, q + p * qd + h * dk, k + p * qd + h * dk, v + p * vd + h * hd,
                    dec[p * H + h], dk, hd, oh);
      oinv[p * H + h] = ops::rmsnorm(oh, nullptr, hd, a.norm_eps, oh);
    }
  gemm_nt_weight(n, d, vd, o, vd, P[L.wo].w.data(), vd, out, d);
}

void lin_backward(const ArchConfig& a, std::vector<Param>& P, const LayerIdx& L, LayerActs& A,
                  Work& im, size_t n, const float* dout, float* din) {
  const size_t d = a.d_model, H = a.n_heads, dk = a.lin_state, hd = a.head_dim;
  const size_t qd = H * dk, vd = H * hd, sz = dk * hd;
  const float c = 1.0f / std::sqrt(static_cast<float>(dk));
  const float* u = A.u.data();
  const float* q = A.q.data();
  const float* k = A.k.data();
  const float* v = A.vv.data();
  const float* oh = A.o.data();
  const float* S = A.S.data();
  const float* dec = A.a.data();
  gemm_tn_acc(d, vd, n, dout, d, oh, vd, P[L.wo].g.data(), vd);
  float* dO = grow(im.do_, n * vd);
  gemm_nn_weight(n, vd, d, dout, d, P[L.wo].w.data(), vd, dO, vd);
  // Per-head RMS norm without gain: ô = o·inv ⇒ do = inv·(dô − ô·mean(dô⊙ô)).
  for (size_t p = 0; p < n; ++p)
    for (size_t h = 0; h < H; ++h) {
      float* g = dO + p * vd + h * hd;
      const float* y = oh + p * vd + h * hd;
      float s = 0.f;
      for (size_t i = 0; i < hd; ++i) s += g[i] * y[i];
      s /= static_cast<float>(hd);
      const float inv = A.oinv[p * H + h];
      for (size_t i = 0; i < hd; ++i) g[i] = inv * (g[i] - y[i] * s);
    }
  float* dq = grow(im.dq, n * qd);
  float* dkk = grow(im.dk, n * qd);
  float* dv = grow(im.dvv, n * vd);
  float* dz = grow(im.dz, n * H);
  float* dS = grow(im.dS, sz);
  // Reverse recurrence. dS_t = c q_t do_tᵀ + a_{t+1} dS_{t+1};
  // dq_t = c S_t do_t; dk_t = dS_t v_t; dv_t = dS_tᵀ k_t; da_t = <dS_t, S_{t−1}>;
  // a = exp(−softplus(z)) ⇒ da/dz = −a·sigmoid(z).
  for (size_t h = 0; h < H; ++h) {
    std::memset(dS, 0, sz * sizeof(float));
    for (size_t p = n; p-- > 0;) {
      const float anext = p + 1 < n ? dec[(p + 1) * H + h] : 0.f;
      const float* qp = q + p * qd + h * dk;
      const float* kp = k + p * qd + h * dk;
      const float* vp = v + p * vd + h * hd;
      const float* dop = dO + p * vd + h * hd;
      const float* St = S + (p * H + h) * sz;
      const float* Sprev = p > 0 ? S + ((p - 1) * H + h) * sz : nullptr;
      const float da = simd::lin_step_backward(dS, St, Sprev, qp, kp, vp, dop, anext, c, dk, hd,
                                               dq + p * qd + h * dk, dkk + p * qd + h * dk,
                                               dv + p * vd + h * hd);
      const float zz = A.z[p * H + h];
      const float sig = 1.0f / (1.0f + std::exp(-zz));
      dz[p * H + h] = -da * dec[p * H + h] * sig;
    }
  }
  const float* const douts[4] = {dq, dkk, dv, dz};
  stacked_backward(im, stacked_qkva(a, P, L), u, n, d, douts, din, false);
  float* dba = P[L.ba].g.data();
  for (size_t p = 0; p < n; ++p)
    for (size_t h = 0; h < H; ++h) dba[h] += dz[p * H + h];
}

}  // namespace amxqa::train
