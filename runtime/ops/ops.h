// ops.h — the model's non-GEMM math (schemas/MODEL.md), one row at a time,
// and swa over a block of queries on a GEMM the caller passes. Portable C++
// that compilers vectorise; shared by the runtime's forward pass and the
// trainer's forward pass, so the equations are written exactly once.
#pragma once
#include <cstddef>
#include <cstdint>

namespace amxqa::ops {

// MODEL.md "Passage reader": its heads, each head_dim wide.
constexpr uint32_t kReaderHeads = 2;

// y = x / sqrt(mean(x²) + eps) ⊙ g (g may be nullptr: no gain). y may alias x.
// Returns the inverse RMS, which the trainer's backward pass reuses.
float rmsnorm(const float* x, const float* g, size_t n, float eps, float* y);
// rmsnorm of m rows of n floats (row strides ldx and ldy; y may alias x):
// the same bits as m calls, faster.
void rmsnorm_rows(const float* x, size_t ldx, const float* g, size_t m, size_t n, float eps,
                  float* y, size_t ldy);

// RoPE (MODEL.md "swa"): half-split pairs (i, i + hd/2), angle p · theta^(−2i/hd).
// rope_table writes one row of hd floats per position p = pos0 … pos0 + n − 1:
// cs[t·hd + i] = cos and cs[t·hd + hd/2 + i] = sin of pair i's angle (computed
// in double, rounded to float). Build it once and rotate every head with it.
void rope_table(uint32_t pos0, size_t n, size_t hd, float theta, float* cs);
// Rotates the `heads` head vectors x[h·hd … h·hd + hd) of one position, in
// place, by that position's table row cs. inverse = true rotates by the
// negative angle (the transpose: RoPE's backward).
void rope_apply(float* x, size_t heads, size_t hd, const float* cs, bool inverse = false);

// MODEL.md "Question match": flags[i] = 1 if passage[i] occurs among the
// tokens between BOS and the passage (the question and the separator), else 0.
// Those tokens are the runs a[0, na) and b[0, nb) (b may be empty: the trainer
// has them as one run, the runtime keeps the separator apart). A scan:
// questions are short.
void question_match(const uint32_t* a, size_t na, const uint32_t* b, size_t nb,
                    const uint32_t* passage, size_t n, uint8_t* flags);

// Numerically safe softplus and the lin decay a = exp(−softplus(z)).
float softplus(float z);
float lin_decay(float z);

// y = relu(x)², y may alias x.
void relu2(const float* x, size_t n, float* y);

// In-place softmax over n values; returns log(sum exp(x - max)) + max (the log-partition).
float softmax(float* x, size_t n);

// MODEL.md "No-answer head": the head's term h · (W u) of ABSTAIN's score.
// On entry p[0, n) holds the start scores s_i of the n passage positions; on
// exit softmax(s). u[d] receives Σ_i p_i U_i (U: n rows of d floats, stride
// ldu) and wu[d] = W u (W: [d, d] row-major). Scalar, in this fixed order
// (softmax, u position by position, W u row by row, the dot), shared by the
// runtime and the trainer, so every ISA computes the same bits from the same
// inputs. n = 0: u = 0 and the term is 0.
float no_answer_head(const float* W, const float* h, const float* U, size_t ldu, size_t n,
                     size_t d, float* p, float* u, float* wu);

// First key position a swa query at position p sees: max(0, p − W + 1).
inline size_t swa_window_lo(size_t p, size_t window) { return p + 1 > window ? p + 1 - window : 0; }

// The GEMM and softmax that swa_block runs on, shaped as Kernels::attend_gemm
// (C = alpha · A · op(B) under a causal mask, which a GEMM may also ignore:
// the masked scores are zeroed and the masked probabilities are zero) and
// Kernels::softmax (runtime/kernels/kernels.h):
// the runtime passes its session's table, whose canonical order gives every
// ISA the same bits, and the trainer its own GEMM door and softmax.
struct AttendKernels {
  void (*gemm)(bool trans_b, size_t m, size_t n, size_t k, float alpha, const float* A,
               size_t lda, const float* B, size_t ldb, float* C, size_t ldc, size_t causal);
  float (*softmax)(float* x, size_t n);
};

// One swa head over a block of queries at positions p0 … p0 + rows − 1
// (rows of q, stride ldq) against the keys and values at positions
// lo … p0 + rows − 1 (rows of k and v, stride ldkv; lo ≤ swa_window_lo(p0)),
// as two GEMMs: probs (rows × keys, keys = p0 + rows − lo, stride ldp)
// receives scale · q kᵀ softmaxed over each row's own window and zero at its
// other keys, then out (rows × hd, stride ldo) = probs · v.
struct SwaBlock {
  const float* q;
  size_t ldq;
  const float* k;
  const float* v;
  size_t ldkv;
  size_t p0, rows, lo, window, hd;
  float* probs;
  size_t ldp;
  float* out;
  size_t ldo;
};
void swa_block(const AttendKernels& kern, const SwaBlock& b);

// One swa query against n keys/values (rows with the given strides, in floats):
// out[hd] = Σ_j softmax(q·k_j / sqrt(hd))_j v_j. probs (n floats) receives the
// attention weights if non-null, else scratch (n floats) must be given.
void swa_attend(const float* q, const float* K, size_t kstride, const float* V, size_t vstride,
                size_t n, size_t hd, float* probs, float* out);

// One lin step for one head: S ← a S + k vᵀ (S is dk × hd, row-major), then
// o = Sᵀ q / sqrt(dk). The per-head RMS normalisation is ops::rmsnorm(o, nullptr, ...).
void lin_step(float* S, const float* q, const float* k, const float* v, float a, size_t dk,
              size_t hd, float* o);

// MoE routing from router logits r[E]: the k largest (ties: lower index first)
// into idx[k] in descending order of logit, and their softmax gates into gates[k].
void moe_route(const float* r, size_t E, size_t k, uint32_t* idx, float* gates);

}  // namespace amxqa::ops
