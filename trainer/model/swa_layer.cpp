// swa_layer.cpp — MODEL.md "swa": sliding-window softmax attention with
// grouped KV heads and half-split RoPE (ops::rope_table / ops::rope_apply).
// Projections are GEMMs over the document; attention runs per head on blocks
// of queries (ops::swa_block, the runtime's prefill attention), so scores,
// softmax-weighted values and the whole backward are GEMMs too. Backward
// written by hand next to it.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "model/train_impl.h"
#include "model/train_simd.h"
#include "ops/ops.h"

namespace amxqa::train {
namespace {

// RoPE's cos/sin of positions [0, n) (ops::rope_table), built once for the
// longest document so far.
void ensure_rope_table(Work& im, size_t n, size_t hd, float theta) {
  if (im.rope_rows >= n && im.rope_hd == hd) return;
  ops::rope_table(0, n, hd, theta, grow(im.rope_cs, n * hd));
  im.rope_rows = static_cast<uint32_t>(n);
  im.rope_hd = static_cast<uint32_t>(hd);
}

// Rotates each of `heads` head vectors of every row by its position
// (inverse: by the negative angle, which is the transpose: the RoPE backward).
void apply_rope(const Work& im, float* X, size_t n, size_t heads, size_t hd, bool inverse) {
  for (size_t p = 0; p < n; ++p)
    ops::rope_apply(X + p * heads * hd, heads, hd, im.rope_cs.data() + p * hd, inverse);
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

// Queries per attention block. A block's scores span the union of its rows'
// windows, so each row computes up to kBlock − 1 masked columns; smaller blocks
// waste less but make more, narrower GEMMs (32 to 96 rows measured within a few
// percent of each other on 100- to 1024-token documents; 64 best at 1024).
constexpr size_t kBlock = 64;

// Widest key range of a block: the probs row stride.
size_t probs_cols(size_t n, size_t window) { return std::min(n, std::min(window, n) + kBlock - 1); }

// Query block [p0, p1): its keys are [lo, p1), one column each in its rows of
// probs (row stride probs_cols); only a row's window is nonzero there.
struct Block {
  size_t p0, p1, lo;
  size_t rows() const { return p1 - p0; }
  size_t keys() const { return p1 - lo; }
};

template <class F>
void for_each_block(size_t n, size_t window, F f) {
  for (size_t p0 = 0; p0 < n; p0 += kBlock)
    f(Block{p0, std::min(n, p0 + kBlock), ops::swa_window_lo(p0, window)});
}

// For each row r of block b in M (row stride cols): f(r, first, len) on the
// row's window columns [first, first + len); its other key columns are zeroed.
template <class F>
void over_windows(float* M, size_t cols, const Block& b, size_t window, F f) {
  for (size_t p = b.p0; p < b.p1; ++p) {
    float* row = M + (p - b.p0) * cols;
    const size_t first = ops::swa_window_lo(p, window) - b.lo, end = p + 1 - b.lo;
    std::fill(row, row + first, 0.f);
    f(p - b.p0, first, end - first);
    std::fill(row + end, row + b.keys(), 0.f);
  }
}

}  // namespace

void swa_forward(const ArchConfig& a, std::vector<Param>& P, const LayerIdx& L, LayerActs& A,
                 Work& im, size_t n, float* out) {
  const size_t d = a.d_model, H = a.n_heads, G = a.n_kv_heads, hd = a.head_dim;
  const size_t qd = H * hd, kd = G * hd, rep = H / G;
  const size_t cols = probs_cols(n, a.window);
  float* q = grow(A.q, n * qd);
  float* k = grow(A.k, n * kd);
  float* v = grow(A.vv, n * kd);
  float* o = grow(A.o, n * qd);
  float* probs = grow(A.probs, H * n * cols);
  const Stacked qkv = stacked_qkv(P, L, qd, kd);
  float* const outs[3] = {q, k, v};
  stacked_forward(im, qkv, A.u.data(), n, d, outs);
  ensure_rope_table(im, n, hd, a.rope_theta);
  apply_rope(im, q, n, H, hd, false);
  apply_rope(im, k, n, G, hd, false);
  // Per block, ops::swa_block: P = softmax of scale·Q Kᵀ over each row's
  // window (kept in probs for the backward), O = P V.
  const ops::AttendKernels attend{[](bool trans_b, size_t m, size_t n, size_t kd, float alpha,
                                     const float* A, size_t lda, const float* B, size_t ldb,
                                     float* C, size_t ldc, size_t /*causal: all computed*/) {
                                    train_sgemm(false, trans_b, m, n, kd, alpha, A, lda, B, ldb,
                                                0.f, C, ldc);
                                  },
                                  [](float* x, size_t len) {
                                    simd::softmax(x, len);
                                    return 0.f;  // the log-partition is not needed
                                  }};
  for (size_t h = 0; h < H; ++h) {
    const size_t g = h / rep;
    for_each_block(n, a.window, [&](const Block& b) {
      ops::SwaBlock blk;
      blk.q = q + b.p0 * qd + h * hd;
      blk.ldq = qd;
      blk.k = k + b.lo * kd + g * hd;
      blk.v = v + b.lo * kd + g * hd;
      blk.ldkv = kd;
      blk.p0 = b.p0;
      blk.rows = b.rows();
      blk.lo = b.lo;
      blk.window = a.window;
      blk.hd = hd;
      blk.probs = probs + (h * n + b.p0) * cols;
      blk.ldp = cols;
      blk.out = o + b.p0 * qd + h * hd;
      blk.ldo = qd;
      ops::swa_block(attend, blk);
    });
  }
  gemm_nt_weight(n, d, qd, o, qd, P[L.wo].w.data(), qd, out, d);
}

void swa_backward(const ArchConfig& a, std::vector<Param>& P, const LayerIdx& L, LayerActs& A,
                  Work& im, size_t n, const float* dout, float* din) {
  const size_t d = a.d_model, H = a.n_heads, G = a.n_kv_heads, hd = a.head_dim;
  const size_t qd = H * hd, kd = G * hd, rep = H / G;
  const float scale = 1.0f / std::sqrt(static_cast<float>(hd));
  // out = O · woᵀ
  gemm_tn_acc(d, qd, n, dout, d, A.o.data(), qd, P[L.wo].g.data(), qd);
  float* dO = grow(im.do_, n * qd);
  gemm_nn_weight(n, qd, d, dout, d, P[L.wo].w.data(), qd, dO, qd);
  float* dq = grow(im.dq, n * qd);
  float* dk = grow(im.dk, n * kd);
  float* dv = grow(im.dvv, n * kd);
  std::memset(dk, 0, n * kd * sizeof(float));
  std::memset(dv, 0, n * kd * sizeof(float));
  const size_t cols = probs_cols(n, a.window);
  float* dS = grow(im.g2, kBlock * cols);
  const float* q = A.q.data();
  const float* k = A.k.data();
  const float* v = A.vv.data();
  // O = P V, P = softmax(S) row-wise, S = scale·Q Kᵀ. Per block:
  // dV += Pᵀ dO; dP = dO Vᵀ; dS = P ∘ (dP − rowsum(P ∘ dP))·scale (the scale
  // folded in here); dQ = dS K; dK += dSᵀ Q. Masked entries have P = 0 and
  // are zeroed in dS, so they add nothing.
  for (size_t h = 0; h < H; ++h) {
    const size_t g = h / rep;
    for_each_block(n, a.window, [&](const Block& b) {
      const size_t kv = b.lo * kd + g * hd, qo = b.p0 * qd + h * hd;
      const float* Pb = A.probs.data() + (h * n + b.p0) * cols;
      gemm_tn_acc(b.keys(), hd, b.rows(), Pb, cols, dO + qo, qd, dv + kv, kd);
      gemm_nt(b.rows(), b.keys(), hd, dO + qo, qd, v + kv, kd, dS, cols);
      over_windows(dS, cols, b, a.window, [&](size_t r, size_t first, size_t len) {
        simd::softmax_backward(Pb + r * cols + first, dS + r * cols + first, len, scale);
      });
      gemm_nn(b.rows(), hd, b.keys(), dS, cols, k + kv, kd, dq + qo, qd);
      gemm_tn_acc(b.keys(), hd, b.rows(), dS, cols, q + qo, qd, dk + kv, kd);
    });
  }
  apply_rope(im, dq, n, H, hd, true);
  apply_rope(im, dk, n, G, hd, true);
  const float* const douts[3] = {dq, dk, dv};
  stacked_backward(im, stacked_qkv(P, L, qd, kd), A.u.data(), n, d, douts, din, false);
}

}  // namespace amxqa::train
