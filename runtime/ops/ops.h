// ops.h — the model's non-GEMM math (schemas/MODEL.md), one row at a time.
// Portable C++ that compilers vectorise; shared by the runtime's forward pass
// and the trainer's forward pass, so the equations are written exactly once.
#pragma once
#include <cstddef>
#include <cstdint>

namespace amxqa::ops {

// y = x / sqrt(mean(x²) + eps) ⊙ g (g may be nullptr: no gain). y may alias x.
// Returns the inverse RMS, which the trainer's backward pass reuses.
float rmsnorm(const float* x, const float* g, size_t n, float eps, float* y);

// RoPE, half-split pairs (i, i + hd/2), angle pos · theta^(−2i/hd), in place.
// inverse = true rotates by the negative angle (the backward pass).
void rope(float* v, size_t hd, uint32_t pos, float theta, bool inverse = false);

// Numerically safe softplus and the lin decay a = exp(−softplus(z)).
float softplus(float z);
float lin_decay(float z);

// y = relu(x)², y may alias x.
void relu2(const float* x, size_t n, float* y);

// In-place softmax over n values; returns log(sum exp(x - max)) + max (the log-partition).
float softmax(float* x, size_t n);

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
