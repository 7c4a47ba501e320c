// swa_layer.cpp — MODEL.md "swa": sliding-window softmax attention with
// grouped KV heads and half-split RoPE. Forward: projections as GEMMs over the
// document, per-(head, position) attention through ops::swa_attend. Backward
// written by hand next to it.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "model/train_impl.h"
#include "model/train_simd.h"
#include "ops/ops.h"

namespace amxqa::train {
namespace {

// cos/sin of every (position, pair) as ops::rope computes them: rotating the
// vector (1…1, 0…0) by position p yields cos in the first half, sin in the second.
void ensure_rope_table(Work& im, size_t n, size_t hd, float theta) {
  if (im.rope_rows >= n && im.rope_hd == hd) return;
  float* t = grow(im.rope_cs, n * hd);
  for (size_t p = 0; p < n; ++p) {
    float* row = t + p * hd;
    for (size_t i = 0; i < hd / 2; ++i) row[i] = 1.f, row[i + hd / 2] = 0.f;
    ops::rope(row, hd, static_cast<uint32_t>(p), theta);
  }
  im.rope_rows = static_cast<uint32_t>(n);
  im.rope_hd = static_cast<uint32_t>(hd);
}

// Rotates each of `heads` head vectors of every row by its position
// (inverse: by the negative angle, which is the transpose: the RoPE backward).
void apply_rope(const Work& im, float* X, size_t n, size_t heads, size_t hd, bool inverse) {
  const size_t half = hd / 2;
  for (size_t p = 0; p < n; ++p) {
    const float* c = im.rope_cs.data() + p * hd;
    const float* s = c + half;
    for (size_t h = 0; h < heads; ++h) {
      float* v = X + (p * heads + h) * hd;
      for (size_t i = 0; i < half; ++i) {
        const float a = v[i], b = v[i + half];
        const float si = inverse ? -s[i] : s[i];
        v[i] = a * c[i] - b * si;
        v[i + half] = a * si + b * c[i];
      }
    }
  }
}

Stacked stacked_qkv(std::vector<Param>& P, const LayerIdx& L, size_t qd, size_t kd) {
  Stacked s;
  s.count = 3;
  const int idx[3] = {L.wq, L.wk, L.wv};
  const size_t rows[3] = {qd, kd, kd};
  for (int i = 0; i < 3; ++i) {
    s.w[i] = P[idx[i]].w.data();
    s.g[i] = P[idx[i]].g.data();
    s.rows[i] = rows[i];
  }
  return s;
}

}  // namespace

void swa_forward(const ArchConfig& a, std::vector<Param>& P, const LayerIdx& L, LayerActs& A,
                 Work& im, size_t n, float* out) {
  const size_t d = a.d_model, H = a.n_heads, G = a.n_kv_heads, hd = a.head_dim;
  const size_t qd = H * hd, kd = G * hd, rep = H / G;
  const size_t Wc = std::min<size_t>(a.window, n);
  float* q = grow(A.q, n * qd);
  float* k = grow(A.k, n * kd);
  float* v = grow(A.vv, n * kd);
  float* o = grow(A.o, n * qd);
  float* probs = grow(A.probs, H * n * Wc);
  const Stacked qkv = stacked_qkv(P, L, qd, kd);
  float* const outs[3] = {q, k, v};
  stacked_forward(im, qkv, A.u.data(), n, d, outs);
  ensure_rope_table(im, n, hd, a.rope_theta);
  apply_rope(im, q, n, H, hd, false);
  apply_rope(im, k, n, G, hd, false);
  for (size_t h = 0; h < H; ++h) {
    const size_t g = h / rep;
    for (size_t p = 0; p < n; ++p) {
      const size_t lo = p + 1 > a.window ? p + 1 - a.window : 0;
      ops::swa_attend(q + p * qd + h * hd, k + lo * kd + g * hd, kd, v + lo * kd + g * hd, kd,
                      p - lo + 1, hd, probs + (h * n + p) * Wc, o + p * qd + h * hd);
    }
  }
  gemm_nt(n, d, qd, o, qd, P[L.wo].w.data(), qd, out, d);
}

void swa_backward(const ArchConfig& a, std::vector<Param>& P, const LayerIdx& L, LayerActs& A,
                  Work& im, size_t n, const float* dout, float* din) {
  const size_t d = a.d_model, H = a.n_heads, G = a.n_kv_heads, hd = a.head_dim;
  const size_t qd = H * hd, kd = G * hd, rep = H / G;
  const size_t Wc = std::min<size_t>(a.window, n);
  const float scale = 1.0f / std::sqrt(static_cast<float>(hd));
  // out = O · woᵀ
  gemm_tn_acc(d, qd, n, dout, d, A.o.data(), qd, P[L.wo].g.data(), qd);
  float* dO = grow(im.do_, n * qd);
  gemm_nn(n, qd, d, dout, d, P[L.wo].w.data(), qd, dO, qd);
  float* dq = grow(im.dq, n * qd);
  float* dk = grow(im.dk, n * kd);
  float* dv = grow(im.dvv, n * kd);
  std::memset(dk, 0, n * kd * sizeof(float));
  std::memset(dv, 0, n * kd * sizeof(float));
  float* dp = grow(im.g2, Wc);
  const float* q = A.q.data();
  const float* k = A.k.data();
  const float* v = A.vv.data();
  // o = Σ_j p_j v_j, p = softmax(s), s_j = q·k_j·scale:
  // dv_j += p_j do; dp_j = do·v_j; ds_j = p_j (dp_j − Σ p dp); dq = scale Σ ds_j k_j;
  // dk_j += scale ds_j q.
  for (size_t h = 0; h < H; ++h) {
    const size_t g = h / rep;
    for (size_t p = 0; p < n; ++p) {
      const size_t lo = p + 1 > a.window ? p + 1 - a.window : 0;
      const size_t off = lo * kd + g * hd;
      simd::swa_query_backward(A.probs.data() + (h * n + p) * Wc, p - lo + 1, dO + p * qd + h * hd,
                               q + p * qd + h * hd, k + off, v + off, dk + off, dv + off, kd, hd,
                               scale, dq + p * qd + h * hd, dp);
    }
  }
  apply_rope(im, dq, n, H, hd, true);
  apply_rope(im, dk, n, G, hd, true);
  const float* const douts[3] = {dq, dk, dv};
  stacked_backward(im, stacked_qkv(P, L, qd, kd), A.u.data(), n, d, douts, din, false);
}

}  // namespace amxqa::train
