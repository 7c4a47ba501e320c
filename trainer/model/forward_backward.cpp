// forward_backward.cpp — one document through MODEL.md "Forward pass":
// embedding, pre-norm layers (h = x + Mixer(RMSNorm x); x = h + FFN(RMSNorm h)),
// tied readout; then the backward pass in reverse, accumulating Param::g.
// Per-layer math lives in swa_layer / lin_layer / ffn_layer / readout_loss.
#include <cmath>
#include <cstring>
#include <stdexcept>

#include "model/train_impl.h"
#include "model/train_simd.h"
#include "ops/ops.h"

namespace amxqa::train {

namespace {

// Backward through a pre-norm residual sub-layer y = x + F(RMSNorm(x; g)):
// dx = dy (the residual) + RMSNorm'(x)ᵀ · dnorm, where dnorm is F's input
// gradient; also accumulates the gain gradient into norm.g.
void residual_norm_backward(Param& norm, const float* x, const float* inv, const float* dnorm,
                            const float* dy, size_t n, size_t d, float* dx) {
  std::memcpy(dx, dy, n * d * sizeof(float));
  for (size_t p = 0; p < n; ++p)
    simd::rmsnorm_backward(x + p * d, norm.w.data(), inv[p], dnorm + p * d, d, dx + p * d,
                           norm.g.data());
}

void check_tokens(const ArchConfig& a, const uint32_t* tokens, size_t n) {
  if (n == 0 || tokens[0] != kBos) throw std::invalid_argument("document must start with BOS");
  for (size_t i = 0; i < n; ++i)
    if (tokens[i] >= a.vocab_size) throw std::invalid_argument("token id out of range");
}

// MODEL.md "Question match" (ops::question_match): im.qmatch[p] = 1 for the
// passage positions p whose id occurs between BOS and the passage, else 0.
void question_match_flags(const ArchConfig& a, const uint32_t* tokens, size_t n,
                          const LossOptions& opt, Work& im) {
  im.qmatch.assign(n, 0);
  const size_t pb = opt.passage_begin, pe = opt.passage_end < n ? opt.passage_end : n;
  if (!a.question_match || pb < 1 || pb >= pe) return;
  ops::question_match(tokens + 1, pb - 1, nullptr, 0, tokens + pb, pe - pb, im.qmatch.data() + pb);
}

// Forward through every layer; leaves im.x = x_L and each layer's activations.
void forward_layers(const ArchConfig& a, std::vector<Param>& P, Work& im, const uint32_t* tokens,
                    size_t n, const LossOptions& opt, StepStats& st) {
  const size_t d = a.d_model;
  auto t0 = Clock::now();
  float* x = grow(im.x, n * d);
  const float* E = P[im.tok_emb].w.data();
  question_match_flags(a, tokens, n, opt, im);
  for (size_t p = 0; p < n; ++p) {
    std::memcpy(x + p * d, E + size_t(tokens[p]) * d, d * sizeof(float));
    if (im.qmatch[p])
      for (size_t i = 0; i < d; ++i) x[p * d + i] += E[size_t(kPad) * d + i];
  }
  float* tmp = grow(im.dmix, n * d);
  size_t moe_i = 0;
  for (size_t l = 0; l < a.n_layers; ++l) {
    const LayerIdx& L = im.layers[l];
    LayerActs& A = im.acts[l];
    float* xin = grow(A.xin, n * d);
    float* u = grow(A.u, n * d);
    float* inv1 = grow(A.inv1, n);
    float* h = grow(A.h, n * d);
    float* v = grow(A.v, n * d);
    float* inv2 = grow(A.inv2, n);
    std::memcpy(xin, x, n * d * sizeof(float));
    const float* g1 = P[L.attn_norm].w.data();
    for (size_t p = 0; p < n; ++p) inv1[p] = ops::rmsnorm(xin + p * d, g1, d, a.norm_eps, u + p * d);
    im.times.other += seconds_since(t0);
    t0 = Clock::now();
    if (L.lin)
      lin_forward(a, P, L, A, im, n, tmp);
    else
      swa_forward(a, P, L, A, im, n, tmp);
    im.times.attention += seconds_since(t0);
    t0 = Clock::now();
    for (size_t i = 0; i < n * d; ++i) h[i] = xin[i] + tmp[i];
    const float* g2 = P[L.ffn_norm].w.data();
    for (size_t p = 0; p < n; ++p) inv2[p] = ops::rmsnorm(h + p * d, g2, d, a.norm_eps, v + p * d);
    im.times.other += seconds_since(t0);
    t0 = Clock::now();
    if (L.moe) {
      uint64_t* counts = st.expert_counts.data() + moe_i * a.moe_experts;
      moe_forward(a, P, L, A, opt, n, tmp, counts);
      st.aux_loss += A.aux;
      ++moe_i;
      im.times.moe += seconds_since(t0);
    } else {
      mlp_forward(a, P, L, A, n, tmp);
      im.times.mlp += seconds_since(t0);
    }
    t0 = Clock::now();
    for (size_t i = 0; i < n * d; ++i) x[i] = h[i] + tmp[i];
  }
  im.times.other += seconds_since(t0);
}

void backward_layers(const ArchConfig& a, std::vector<Param>& P, Work& im, const uint32_t* tokens,
                     size_t n, const LossOptions& opt) {
  const size_t d = a.d_model;
  float* dx = im.dx.data();
  float* dh = grow(im.dh, n * d);
  float* din = grow(im.du, n * d);
  for (size_t l = a.n_layers; l-- > 0;) {
    const LayerIdx& L = im.layers[l];
    LayerActs& A = im.acts[l];
    // x = h + FFN(v), v = RMSNorm(h)
    auto t0 = Clock::now();
    if (L.moe) {
      moe_backward(a, P, L, A, im, opt, n, dx, din);
      im.times.moe += seconds_since(t0);
    } else {
      mlp_backward(a, P, L, A, im, n, dx, din);
      im.times.mlp += seconds_since(t0);
    }
    t0 = Clock::now();
    residual_norm_backward(P[L.ffn_norm], A.h.data(), A.inv2.data(), din, dx, n, d, dh);
    im.times.other += seconds_since(t0);
    // h = x_in + Mixer(u), u = RMSNorm(x_in)
    t0 = Clock::now();
    if (L.lin)
      lin_backward(a, P, L, A, im, n, dh, din);
    else
      swa_backward(a, P, L, A, im, n, dh, din);
    im.times.attention += seconds_since(t0);
    t0 = Clock::now();
    residual_norm_backward(P[L.attn_norm], A.xin.data(), A.inv1.data(), din, dh, n, d, dx);
    im.times.other += seconds_since(t0);
  }
  auto t0 = Clock::now();
  float* ge = P[im.tok_emb].g.data();
  for (size_t p = 0; p < n; ++p) {
    float* row = ge + size_t(tokens[p]) * d;
    for (size_t i = 0; i < d; ++i) row[i] += dx[p * d + i];
    if (im.qmatch[p])  // set by forward_layers for these tokens
      for (size_t i = 0; i < d; ++i) ge[size_t(kPad) * d + i] += dx[p * d + i];
  }
  im.times.other += seconds_since(t0);
}

}  // namespace

StepStats TrainModel::forward_backward(const uint32_t* tokens, size_t n,
                                       const uint8_t* target_mask, const LossOptions& opt) {
  const FlushSubnormals flush;
  check_tokens(arch_, tokens, n);
  Work& im = *impl_;
  StepStats st;
  st.expert_counts.assign(arch_.moe_layers.size() * arch_.moe_experts, 0);
  forward_layers(arch_, params_, im, tokens, n, opt, st);
  auto t0 = Clock::now();
  float* dx = grow(im.dx, n * arch_.d_model);
  std::memset(dx, 0, n * arch_.d_model * sizeof(float));
  readout_loss(arch_, params_, im, tokens, n, target_mask, opt, true, st, dx);
  im.times.readout += seconds_since(t0);
  for (size_t t = 0; t < n; ++t) {
    ++token_seen_[tokens[t]];
    if (t + 1 < n && target_mask[t]) ++token_seen_[tokens[t + 1]];
  }
  backward_layers(arch_, params_, im, tokens, n, opt);
  return st;
}

StepStats TrainModel::evaluate(const uint32_t* tokens, size_t n, const uint8_t* target_mask,
                               const LossOptions& opt) {
  const FlushSubnormals flush;
  check_tokens(arch_, tokens, n);
  Work& im = *impl_;
  StepStats st;
  st.expert_counts.assign(arch_.moe_layers.size() * arch_.moe_experts, 0);
  forward_layers(arch_, params_, im, tokens, n, opt, st);
  auto t0 = Clock::now();
  readout_loss(arch_, params_, im, tokens, n, target_mask, opt, false, st, nullptr);
  im.times.readout += seconds_since(t0);
  return st;
}

void TrainModel::last_logits(const uint32_t* tokens, size_t n, std::vector<float>& logits,
                             const LossOptions& opt) {
  const FlushSubnormals flush;
  check_tokens(arch_, tokens, n);
  Work& im = *impl_;
  StepStats st;
  st.expert_counts.assign(arch_.moe_layers.size() * arch_.moe_experts, 0);
  forward_layers(arch_, params_, im, tokens, n, opt, st);
  const size_t d = arch_.d_model, V = arch_.vocab_size;
  float* xf = grow(im.xf, d);
  ops::rmsnorm(im.x.data() + (n - 1) * d, params_[im.final_norm].w.data(), d, arch_.norm_eps, xf);
  logits.resize(V);
  gemm_nt(1, V, d, xf, d, params_[im.tok_emb].w.data(), d, logits.data(), V);
}

}  // namespace amxqa::train
