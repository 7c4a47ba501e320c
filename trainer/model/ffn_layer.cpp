// ffn_layer.cpp — MODEL.md "MLP" (w2 · relu(w1 v)²) and "Block-routed MoE":
// one routing decision per block of B positions from the windowed mean of v,
// top-k experts with softmax gates, each expert a ReLU² MLP run as one GEMM
// over the whole block; plus the load-balance loss coef·E·Σ frac_i·P_i.
// Backward: gradients reach the router through the gates AND through the
// statistic into v of the window's positions; only chosen experts are touched.
#include <algorithm>
#include <cstring>

#include "model/train_impl.h"
#include "model/train_simd.h"
#include "ops/ops.h"

namespace amxqa::train {
void mlp_forward(const ArchConfig& a, std::vector<Param>& P, const LayerIdx& L, LayerActs& A,
                 size_t n, float* out) {
  const size_t d = a.d_model, f = a.d_ff;
  float* pre = grow(A.pre, n * f);
  float* act = grow(A.act, n * f);
  gemm_nt_weight(n, f, d, A.v.data(), d, P[L.w1].w.data(), d, pre, f);
  ops::relu2(pre, n * f, act);
  gemm_nt_weight(n, d, f, act, f, P[L.w2].w.data(), f, out, d);
}

void mlp_backward(const ArchConfig& a, std::vector<Param>& P, const LayerIdx& L, LayerActs& A,
                  Work& im, size_t n, const float* dout, float* din) {
  const size_t d = a.d_model, f = a.d_ff;
  gemm_tn_acc(d, f, n, dout, d, A.act.data(), f, P[L.w2].g.data(), f);
  float* dact = grow(im.dact, n * f);
  gemm_nn_weight(n, f, d, dout, d, P[L.w2].w.data(), f, dact, f);
  simd::relu2_backward(A.pre.data(), dact, n * f);
  gemm_tn_acc(f, d, n, dact, f, A.v.data(), d, P[L.w1].g.data(), d);
  gemm_nn_weight(n, d, f, dact, f, P[L.w1].w.data(), d, din, d);
}

void moe_forward(const ArchConfig& a, std::vector<Param>& P, const LayerIdx& L, LayerActs& A,
                 const LossOptions& opt, size_t n, float* out, uint64_t* counts) {
  const size_t d = a.d_model, E = a.moe_experts, K = std::min(a.moe_top_k, a.moe_experts);
  const size_t f = a.moe_d_ff, B = std::max<uint32_t>(a.moe_route_block, 1);
  const size_t R = std::max<uint32_t>(a.moe_route_window, 1);
  const size_t nb = (n + B - 1) / B;
  float* pre = grow(A.pre, K * n * f);
  float* act = grow(A.act, K * n * f);
  if (A.blocks.size() < nb) A.blocks.resize(nb);
  const float* v = A.v.data();
  const float* router = P[L.router].w.data();
  // Ablation (paper failure 3, ours): each block routes on the statistic of
  // another block of the same document, a fixed permutation drawn from the seed.
  std::vector<uint32_t> src(nb);
  for (size_t b = 0; b < nb; ++b) src[b] = static_cast<uint32_t>(b);
  if (opt.shuffle_route_stat) {
    uint64_t s = opt.seed ^ 0x5EEDB10Cull;
    for (size_t b = nb; b > 1; --b) std::swap(src[b - 1], src[splitmix64(s) % b]);
  }
  std::vector<float>& lb = A.lb_coef;
  lb.assign(E, 0.f);
  std::vector<float> meanP(E, 0.f);
  for (size_t b = 0; b < nb; ++b) {
    MoeBlock& blk = A.blocks[b];
    blk.start = static_cast<uint32_t>(b * B);
    blk.len = static_cast<uint32_t>(std::min(B, n - b * B));
    const size_t s = src[b] * B;
    blk.stat_hi = static_cast<uint32_t>(s);
    blk.stat_lo = static_cast<uint32_t>(s + 1 > R ? s + 1 - R : 0);
    blk.stat.assign(d, 0.f);
    for (size_t p = blk.stat_lo; p <= s; ++p)
      for (size_t i = 0; i < d; ++i) blk.stat[i] += v[p * d + i];
    const float inv = 1.0f / static_cast<float>(s - blk.stat_lo + 1);
    for (size_t i = 0; i < d; ++i) blk.stat[i] *= inv;
    blk.probs.resize(E);
    gemm_nt_weight(1, E, d, blk.stat.data(), d, router, d, blk.probs.data(), E);
    blk.idx.resize(K);
    blk.gates.resize(K);
    ops::moe_route(blk.probs.data(), E, K, blk.idx.data(), blk.gates.data());
    ops::softmax(blk.probs.data(), E);
    for (size_t i = 0; i < E; ++i) meanP[i] += blk.probs[i];
    float* ob = out + blk.start * d;
    for (size_t j = 0; j < K; ++j) {
      const size_t e = blk.idx[j];
      float* pj = pre + (j * n + blk.start) * f;
      float* aj = act + (j * n + blk.start) * f;
      gemm_nt_weight(blk.len, f, d, v + blk.start * d, d, P[L.moe_w1].w.data() + e * f * d, d, pj, f);
      ops::relu2(pj, blk.len * f, aj);
      gemm_nt_weight(blk.len, d, f, aj, f, P[L.moe_w2].w.data() + e * d * f, f, ob, d,
              j == 0 ? 0.f : 1.f, blk.gates[j]);
      lb[e] += 1.f;
      if (counts) ++counts[e];
    }
  }
  // aux = coef·E·Σ frac_i·P_i; frac is a count (no gradient), so d aux/d P_i = coef·E·frac_i.
  double aux = 0;
  for (size_t i = 0; i < E; ++i) {
    lb[i] = opt.load_balance * static_cast<float>(E) * lb[i] / static_cast<float>(nb * K);
    aux += double(lb[i]) * meanP[i] / double(nb);
  }
  A.aux = static_cast<float>(aux);
}

void moe_backward(const ArchConfig& a, std::vector<Param>& P, const LayerIdx& L, LayerActs& A,
                  Work& im, const LossOptions& opt, size_t n, const float* dout, float* din) {
  const size_t d = a.d_model, E = a.moe_experts, K = std::min(a.moe_top_k, a.moe_experts);
  const size_t f = a.moe_d_ff, B = std::max<uint32_t>(a.moe_route_block, 1);
  const size_t nb = (n + B - 1) / B;
  const float* v = A.v.data();
  Param& W1 = P[L.moe_w1];
  Param& W2 = P[L.moe_w2];
  Param& Rt = P[L.router];
  std::memset(din, 0, n * d * sizeof(float));
  float* G = grow(im.dact, B * f);
  float* dr = grow(im.dz, E);
  float* dstat = grow(im.g2, d);
  for (size_t b = 0; b < nb; ++b) {
    const MoeBlock& blk = A.blocks[b];
    const float* dob = dout + blk.start * d;
    float dgate[64];
    float gsum = 0.f;
    for (size_t j = 0; j < K; ++j) {
      const size_t e = blk.idx[j];
      const float g = blk.gates[j];
      const float* pj = A.pre.data() + (j * n + blk.start) * f;
      const float* aj = A.act.data() + (j * n + blk.start) * f;
      // y_e = w2_e · act;  out += g·y_e  ⇒ dW2_e += g·doutᵀ act; G = dout·w2_e; dg = <G, act>
      gemm_tn_acc(d, f, blk.len, dob, d, aj, f, W2.g.data() + e * d * f, f, g);
      gemm_nn_weight(blk.len, f, d, dob, d, W2.w.data() + e * d * f, f, G, f);
      // <G, act> through the runtime's row-dot kernel: G viewed as one f32 row.
      float dg = 0.f;
      const uint32_t row0 = 0;
      WeightView gv;
      gv.rows = 1;
      gv.cols = static_cast<uint32_t>(blk.len * f);
      gv.data = G;
      train_kernels().rows_dot(gv, &row0, 1, aj, &dg);
      dgate[j] = dg;
      gsum += g * dg;
      simd::relu2_backward(pj, G, blk.len * f);  // G ← d(act)/d(pre) ⊙ G, still missing g
      gemm_tn_acc(f, d, blk.len, G, f, v + blk.start * d, d, W1.g.data() + e * f * d, d, g);
      gemm_nn_weight(blk.len, d, f, G, f, W1.w.data() + e * f * d, d, din + blk.start * d, d, 1.f, g);
      W1.touched[e] = 1;
      W2.touched[e] = 1;
    }
    // Gates: softmax over the chosen logits ⇒ dr_i = g_i (dg_i − Σ g dg).
    std::fill(dr, dr + E, 0.f);
    for (size_t j = 0; j < K; ++j) dr[blk.idx[j]] = blk.gates[j] * (dgate[j] - gsum);
    // Load balance: P = mean_b softmax(r_b) ⇒ dr_i += aux_scale/nb · p_i (c_i − Σ p c).
    float pc = 0.f;
    for (size_t i = 0; i < E; ++i) pc += blk.probs[i] * A.lb_coef[i];
    const float w = opt.aux_scale / static_cast<float>(nb);
    for (size_t i = 0; i < E; ++i) dr[i] += w * blk.probs[i] * (A.lb_coef[i] - pc);
    // r = router · stat ⇒ drouter += dr ⊗ stat; dstat = routerᵀ dr, spread over the window.
    gemm_tn_acc(E, d, 1, dr, E, blk.stat.data(), d, Rt.g.data(), d);
    gemm_nn_weight(1, d, E, dr, E, Rt.w.data(), d, dstat, d);
    const float inv = 1.0f / static_cast<float>(blk.stat_hi - blk.stat_lo + 1);
    for (size_t p = blk.stat_lo; p <= blk.stat_hi; ++p)
      for (size_t i = 0; i < d; ++i) din[p * d + i] += dstat[i] * inv;
  }
}

}  // namespace amxqa::train
