// passage_reader.cpp — MODEL.md "Passage reader": the pointers' keys U_i (the
// final-normed passage states, which read only to their left) get one layer
// of attention over the WHOLE passage, both sides:
//   Q = U Wqᵀ, K = U Wkᵀ, V = U Wvᵀ (r = heads · hd columns, RoPE at the
//   passage position), O_h = softmax(Q_h K_hᵀ / sqrt(hd)) V_h (no mask),
//   Û = U + O Woᵀ.
// The products are the trainer's GEMM door; the backward is written by hand
// next to the forward, as for the other layers.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "model/train_impl.h"
#include "ops/ops.h"

namespace amxqa::train {

void reader_forward(const ArchConfig& a, std::vector<Param>& P, Work& im, const float* U, size_t np,
                    float* Uhat) {
  const size_t d = a.d_model, hd = a.head_dim, r = size_t(ops::kReaderHeads) * hd;
  const float* Wq = P[im.reader_wq].w.data();
  const float* Wk = P[im.reader_wk].w.data();
  const float* Wv = P[im.reader_wv].w.data();
  const float* Wo = P[im.reader_wo].w.data();
  float* Q = grow(im.rq, np * r);
  float* K = grow(im.rk, np * r);
  float* V = grow(im.rv, np * r);
  float* O = grow(im.ro, np * r);
  float* S = grow(im.rp, ops::kReaderHeads * np * np);
  float* cs = grow(im.rcs, np * hd);
  gemm_nt(np, r, d, U, d, Wq, d, Q, r);
  gemm_nt(np, r, d, U, d, Wk, d, K, r);
  gemm_nt(np, r, d, U, d, Wv, d, V, r);
  ops::rope_table(0, np, hd, a.rope_theta, cs);
  for (size_t i = 0; i < np; ++i) {
    ops::rope_apply(Q + i * r, ops::kReaderHeads, hd, cs + i * hd);
    ops::rope_apply(K + i * r, ops::kReaderHeads, hd, cs + i * hd);
  }
  const float scale = 1.0f / std::sqrt(static_cast<float>(hd));
  for (size_t h = 0; h < ops::kReaderHeads; ++h) {
    float* Sh = S + h * np * np;
    gemm_nt(np, np, hd, Q + h * hd, r, K + h * hd, r, Sh, np, 0.f, scale);
    for (size_t i = 0; i < np; ++i) ops::softmax(Sh + i * np, np);
    gemm_nn(np, hd, np, Sh, np, V + h * hd, r, O + h * hd, r);
  }
  std::memcpy(Uhat, U, np * d * sizeof(float));
  gemm_nt(np, d, r, O, r, Wo, r, Uhat, d, 1.f);
}

void reader_backward(const ArchConfig& a, std::vector<Param>& P, Work& im, const float* U, size_t np,
                     const float* dUhat, float* dU) {
  const size_t d = a.d_model, hd = a.head_dim, r = size_t(ops::kReaderHeads) * hd;
  Param& Pq = P[im.reader_wq];
  Param& Pk = P[im.reader_wk];
  Param& Pv = P[im.reader_wv];
  Param& Po = P[im.reader_wo];
  const float* Q = im.rq.data();
  const float* K = im.rk.data();
  const float* V = im.rv.data();
  const float* O = im.ro.data();
  const float* cs = im.rcs.data();
  float* dO = grow(im.rdo, np * r);
  float* dQ = grow(im.rdq, np * r);
  float* dK = grow(im.rdk, np * r);
  float* dV = grow(im.rdv, np * r);
  float* dP = grow(im.rdp, np * np);
  // Û = U + O Woᵀ.
  std::memcpy(dU, dUhat, np * d * sizeof(float));
  gemm_tn_acc(d, r, np, dUhat, d, O, r, Po.g.data(), r);
  gemm_nn(np, r, d, dUhat, d, Po.w.data(), r, dO, r);
  std::fill(dK, dK + np * r, 0.f);
  std::fill(dV, dV + np * r, 0.f);
  const float scale = 1.0f / std::sqrt(static_cast<float>(hd));
  for (size_t h = 0; h < ops::kReaderHeads; ++h) {
    const float* Ph = im.rp.data() + h * np * np;
    gemm_nt(np, np, hd, dO + h * hd, r, V + h * hd, r, dP, np);        // dP = dO_h V_hᵀ
    gemm_tn_acc(np, hd, np, Ph, np, dO + h * hd, r, dV + h * hd, r);  // dV_h = P_hᵀ dO_h
    for (size_t i = 0; i < np; ++i) {  // softmax backward: dS = P ⊙ (dP − Σ_j P dP)
      const float* p = Ph + i * np;
      float* g = dP + i * np;
      float dot = 0.f;
      for (size_t j = 0; j < np; ++j) dot += p[j] * g[j];
      for (size_t j = 0; j < np; ++j) g[j] = p[j] * (g[j] - dot);
    }
    gemm_nn(np, hd, np, dP, np, K + h * hd, r, dQ + h * hd, r, 0.f, scale);  // dQ_h = dS K_h
    gemm_tn_acc(np, hd, np, dP, np, Q + h * hd, r, dK + h * hd, r, scale);   // dK_h = dSᵀ Q_h
  }
  for (size_t i = 0; i < np; ++i) {  // RoPE's backward: rotate back
    ops::rope_apply(dQ + i * r, ops::kReaderHeads, hd, cs + i * hd, true);
    ops::rope_apply(dK + i * r, ops::kReaderHeads, hd, cs + i * hd, true);
  }
  Param* W[3] = {&Pq, &Pk, &Pv};
  const float* D[3] = {dQ, dK, dV};
  for (int t = 0; t < 3; ++t) {
    gemm_tn_acc(r, d, np, D[t], r, U, d, W[t]->g.data(), d);
    gemm_nn(np, d, r, D[t], r, W[t]->w.data(), d, dU, d, 1.f);
  }
}

}  // namespace amxqa::train
