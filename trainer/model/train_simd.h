// train_simd.h — the trainer's own hot loops that are not GEMMs (backward of
// attention, of the lin recurrence, of ReLU², AdamW). The default build flags
// (SSE2, trapping math, no reassociation) leave these loops scalar, so each has
// an AVX-512 and an AVX2+FMA body (function target attributes, chosen once at
// run time; train_simd_isa.h) and a portable body with the same meaning.
// Results differ between the bodies only in float rounding; one machine under
// one AMXQA_MAX_ISA always takes the same body, whatever the thread count.
#pragma once
#include <cstddef>

namespace amxqa::train::simd {

// dact[i] ← pre[i] > 0 ? 2·pre[i]·dact[i] : 0      (d relu(x)²/dx)
void relu2_backward(const float* pre, float* dact, size_t n);

// Softmax of x[0, n) in place (n ≥ 1; ops::softmax's math, the AVX-512 body
// with its own vector exp).
void softmax(float* x, size_t n);

// Softmax backward of one row: ds[j] ← p[j]·(ds[j] − Σ_i p[i]·ds[i])·scale, where
// ds holds dL/dp on entry.
void softmax_backward(const float* p, float* ds, size_t n, float scale);

// One lin step backward for one head (see lin_layer.cpp): dS ← anext·dS + cq ⊗ dO
// (cq = c·q, dk rows × hd), then dq = c·S do, dk = dS v, dv = dSᵀ k (written),
// returns <dS, Sprev> (0 if Sprev is null).
float lin_step_backward(float* dS, const float* S, const float* Sprev, const float* q,
                        const float* k, const float* v, const float* dO, float anext, float c,
                        size_t dk, size_t hd, float* dq, float* dkv, float* dv);

// AdamW on [0, n): g ← g·gscale; m ← b1 m + (1−b1) g; v ← b2 v + (1−b2) g²;
// w ← w·decay − lr·(m/bc1)/(sqrt(v/bc2) + eps)
void adamw(float* w, float* m, float* v, const float* g, size_t n, float gscale, float b1,
           float b2, float lr, float decay, float bc1, float bc2, float eps);

// RMSNorm backward for one row (forward: ops::rmsnorm, y = x·inv·g):
// dx += inv·(g⊙dy) − x·inv³·Σ(g⊙dy⊙x)/n ; dg += dy⊙x·inv   (g, dg may be null)
void rmsnorm_backward(const float* x, const float* g, float inv, const float* dy, size_t n,
                      float* dx, float* dg);

// Σ g_i² in double.
double sum_squares(const float* g, size_t n);

}  // namespace amxqa::train::simd
