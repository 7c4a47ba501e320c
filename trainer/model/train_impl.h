// train_impl.h — private to trainer/model: where each layer's tensors sit in
// TrainModel::params(), the activations the forward pass keeps for the
// backward pass, reusable scratch, and the per-layer forward/backward entry
// points (one file per layer kind). Buffers only grow, so after the first
// document of the longest length nothing is allocated per call.
#pragma once
#include <time.h>
#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
#endif

#include <cstdint>
#include <vector>

#include "format/splitmix64.h"
#include "kernels/kernels.h"
#include "model/train_model.h"

namespace amxqa::train {

// The trainer's one sgemm (Kernels::sgemm's shape; the bf16 variant when the
// stage computes in bf16) and thin row-major wrappers over it. All matrix
// products of the trainer go here.
void train_sgemm(bool trans_a, bool trans_b, size_t m, size_t n, size_t k, float alpha,
                 const float* A, size_t lda, const float* B, size_t ldb, float beta, float* C,
                 size_t ldc);
// C[m][n] = alpha · A[m][k] · B[n][k]ᵀ + beta · C   (y = W x for every row x)
void gemm_nt(size_t m, size_t n, size_t k, const float* A, size_t lda, const float* B,
             size_t ldb, float* C, size_t ldc, float beta = 0.f, float alpha = 1.f);
// C[m][n] = alpha · A[m][k] · B[k][n] + beta · C     (dX = dY · W)
void gemm_nn(size_t m, size_t n, size_t k, const float* A, size_t lda, const float* B,
             size_t ldb, float* C, size_t ldc, float beta = 0.f, float alpha = 1.f);
// The same two with B a weight matrix (a Param's w, or a slice of it): on
// tiles its bf16 layout is packed once per generation of the weights (once
// per optimizer step, weights_changed()) and reused by every product until
// then; elsewhere exactly gemm_nt / gemm_nn.
void gemm_nt_weight(size_t m, size_t n, size_t k, const float* A, size_t lda, const float* W,
                    size_t ldw, float* C, size_t ldc, float beta = 0.f, float alpha = 1.f);
void gemm_nn_weight(size_t m, size_t n, size_t k, const float* A, size_t lda, const float* W,
                    size_t ldw, float* C, size_t ldc, float beta = 0.f, float alpha = 1.f);
// C[m][n] += alpha · A[k][m]ᵀ · B[k][n]               (dW += dYᵀ · X)
void gemm_tn_acc(size_t m, size_t n, size_t k, const float* A, size_t lda, const float* B,
                 size_t ldb, float* C, size_t ldc, float alpha = 1.f);

// Grows v to at least n elements (never shrinks, so capacity is reused).
inline float* grow(std::vector<float>& v, size_t n) {
  if (v.size() < n) v.resize(n);
  return v.data();
}

// Indices into params() of one layer's tensors (-1: the layer has none).
struct LayerIdx {
  bool lin = false, moe = false;
  int attn_norm = -1, ffn_norm = -1, wq = -1, wk = -1, wv = -1, wo = -1, wa = -1, ba = -1;
  int w1 = -1, w2 = -1, router = -1, moe_w1 = -1, moe_w2 = -1;
};

// One routing decision of a MoE layer (MODEL.md "Block-routed MoE").
struct MoeBlock {
  uint32_t start = 0, len = 0;        // positions [start, start + len)
  uint32_t stat_lo = 0, stat_hi = 0;  // statistic window [lo, hi] (inclusive)
  std::vector<uint32_t> idx;          // k chosen experts, descending logit
  std::vector<float> gates;           // their softmax gates
  std::vector<float> stat;            // [d] windowed mean of v
  std::vector<float> probs;           // [E] full softmax of router logits (load balance)
};

// What one layer's forward pass keeps. Row-major [position][feature].
struct LayerActs {
  std::vector<float> xin, u, inv1, h, v, inv2;  // residual in, normed, h, normed h
  std::vector<float> q, k, vv, o;  // mixer projections (q/k after RoPE for swa); o = head outputs
                                   // (swa: attention output, lin: ô after per-head RMS norm)
  std::vector<float> probs;        // swa: [H][n][cols] attention weights per 64-query block (swa_layer.cpp)
  std::vector<float> z, a, S, oinv;  // lin: decay logits/decays [n][H], states [n][H][dk][hd], 1/rms [n][H]
  std::vector<float> pre, act;     // FFN pre-activation and relu²: MLP [n][d_ff], MoE [k][n][f]
  std::vector<MoeBlock> blocks;    // MoE routing decisions
  float aux = 0.f;                 // load-balance loss of this layer
  std::vector<float> lb_coef;      // [E] coefficient · E · frac_i (d aux / d P_i)
};

// Everything TrainModel::Impl holds (a namespace-scope type, so the per-layer
// functions can name it; TrainModel::Impl itself is private).
struct Work {
  std::vector<LayerIdx> layers;
  int tok_emb = -1, final_norm = -1;
  int no_answer_w = -1;  // MODEL.md "No-answer head" (-1: the model has none)
  int reader_wq = -1, reader_wk = -1, reader_wv = -1, reader_wo = -1;  // MODEL.md "Passage reader"
  std::vector<LayerActs> acts;
  std::vector<float> x;         // [n][d] residual stream after the last layer
  std::vector<uint8_t> qmatch;  // [n] question-match flags of the document (MODEL.md)
  std::vector<float> rope_cs;   // [pos][hd]: cos in [0, hd/2), sin in [hd/2, hd) (ops::rope_table)
  uint32_t rope_rows = 0, rope_hd = 0;

  // Readout.
  std::vector<uint32_t> rows;      // predicted positions
  std::vector<uint32_t> cand;      // candidate ids of the loss's softmax
  std::vector<int32_t> col_of;     // [V] id → candidate column, -1 if absent
  std::vector<uint8_t> allow;      // [C] extractive: may this row emit column c
  std::vector<uint32_t> tcol;      // per predicted row: target column
  std::vector<float> xf, finv, ec, zl, dxf, dec;
  std::vector<float> pu, pinv, pz, pdx;  // start pointer: keys' norms, 1/rms, scores, d(xf row 0)
  std::vector<float> ez, edx;            // end pointer: scores, d(xf row 1) and a key's du
  std::vector<float> nap, nau;           // no-answer head: pool weights p, [u | W u | Wᵀ h]
  std::vector<float> pdu, rdu;           // d(loss)/d(pointer keys Û), and d/d(U) [np][d]
  std::vector<float> ru;                 // passage reader: the keys it reads (U), [np][d]
  std::vector<float> rq, rk, rv, ro, rp, rcs;  // reader: Q, K (after RoPE), V, O, probs [H][np][np], RoPE
  std::vector<float> rdo, rdq, rdk, rdv, rdp;  // reader backward scratch

  // Backward scratch.
  std::vector<float> dx, dh, dmix, du, dv, dq, dk, dvv, do_, dz, dpre, dact, dS, g2;
  std::vector<float> wcat, ycat, gcat;  // stacked projections

  StageTimes times;
};

// The trainer computes with subnormals flushed to zero (ours): MXCSR's FTZ and
// DAZ are set for the lifetime of one forward/backward and the caller's MXCSR
// is restored. Gradients that reach a document only through a few answer
// positions (QA SFT) are full of subnormals, and every FMA on one takes a
// microcode assist: one AVX2 Xeon core trained the QA step 2.5x slower
// without it. Set in every call, so any thread computes the same bits.
struct FlushSubnormals {
#if defined(__x86_64__) || defined(__i386__)
  unsigned saved = _mm_getcsr();
  FlushSubnormals() { _mm_setcsr(saved | 0x8040u); }
  ~FlushSubnormals() { _mm_setcsr(saved); }
#endif
  FlushSubnormals(const FlushSubnormals&) = delete;
  FlushSubnormals& operator=(const FlushSubnormals&) = delete;
};

// Stage times are this thread's CPU time (ours): on a dedicated core it equals
// wall time, on a shared machine it is not inflated by other processes.
struct Clock {
  using time_point = double;
  static double now() {
    timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return double(ts.tv_sec) + 1e-9 * double(ts.tv_nsec);
  }
};
inline double seconds_since(double t0) { return Clock::now() - t0; }

// MODEL.md "Passage reader" (passage_reader.cpp): Uhat = U + reader(U) over
// np passage keys; the backward accumulates the reader's weight gradients and
// WRITES dU from dUhat. Reads the activations reader_forward kept in `im`.
void reader_forward(const ArchConfig& a, std::vector<Param>& P, Work& im, const float* U, size_t np,
                    float* Uhat);
void reader_backward(const ArchConfig& a, std::vector<Param>& P, Work& im, const float* U, size_t np,
                     const float* dUhat, float* dU);

// Per-layer passes. Forward reads acts.u (mixers) or acts.v (FFN), writes
// out[n][d]. Backward reads dout[n][d], accumulates parameter gradients and
// WRITES din[n][d] (gradient w.r.t. u or v).
void swa_forward(const ArchConfig& a, std::vector<Param>& P, const LayerIdx& L, LayerActs& A,
                 Work& im, size_t n, float* out);
void swa_backward(const ArchConfig& a, std::vector<Param>& P, const LayerIdx& L, LayerActs& A,
                  Work& im, size_t n, const float* dout, float* din);
void lin_forward(const ArchConfig& a, std::vector<Param>& P, const LayerIdx& L, LayerActs& A,
                 Work& im, size_t n, float* out);
void lin_backward(const ArchConfig& a, std::vector<Param>& P, const LayerIdx& L, LayerActs& A,
                  Work& im, size_t n, const float* dout, float* din);
void mlp_forward(const ArchConfig& a, std::vector<Param>& P, const LayerIdx& L, LayerActs& A,
                 size_t n, float* out);
void mlp_backward(const ArchConfig& a, std::vector<Param>& P, const LayerIdx& L, LayerActs& A,
                  Work& im, size_t n, const float* dout, float* din);
// MoE forward also computes the load-balance loss (A.aux) and counts slots.
void moe_forward(const ArchConfig& a, std::vector<Param>& P, const LayerIdx& L, LayerActs& A,
                 const LossOptions& opt, size_t n, float* out, uint64_t* counts);
void moe_backward(const ArchConfig& a, std::vector<Param>& P, const LayerIdx& L, LayerActs& A,
                  Work& im, const LossOptions& opt, size_t n, const float* dout,
                  float* din);

// Readout and loss over the predicted positions; with backward, accumulates
// tok_emb/final_norm gradients and writes dx rows (dx must be zeroed).
void readout_loss(const ArchConfig& a, std::vector<Param>& P, Work& im,
                  const uint32_t* tokens, size_t n, const uint8_t* target_mask,
                  const LossOptions& opt, bool backward, StepStats& st, float* dx);

// The trainer's deterministic random source is the project's one generator.
using amxqa::splitmix64;

}  // namespace amxqa::train

struct amxqa::train::TrainModel::Impl : amxqa::train::Work {};

namespace amxqa::train {

// Projections that read the same input (q, k, v, and the lin decay logits) run
// as ONE GEMM against their stacked weights: wider GEMMs run closer to peak.
struct Stacked {
  size_t count = 0;
  const float* w[5];  // [rows[i]][d] each
  float* g[5];        // their gradients
  size_t rows[5];
};
// out[i][n][rows[i]] = U[n][d] · w[i]ᵀ
void stacked_forward(Work& im, const Stacked& s, const float* U, size_t n, size_t d,
                     float* const* out);
// g[i] += dout[i]ᵀ · U ;  din[n][d] = Σ_i dout[i] · w[i]  (+ din if accumulate)
void stacked_backward(Work& im, const Stacked& s, const float* U, size_t n, size_t d,
                      const float* const* dout, float* din, bool accumulate);

}  // namespace amxqa::train
