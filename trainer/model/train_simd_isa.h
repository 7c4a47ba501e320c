// train_simd_isa.h — the bodies behind train_simd.h's entry points, one table
// per ISA: the portable one (the meaning), AVX2+FMA and AVX-512. train_simd.cpp
// picks one table under train_isa(); test_train_simd holds each vector table
// to the portable one. A vector table's functions run only on a CPU that has
// its ISA (check with __builtin_cpu_supports before calling one).
#pragma once
#include <cstddef>

namespace amxqa::train::simd {

// One function per entry point of train_simd.h, with its signature and meaning.
struct Bodies {
  void (*relu2_backward)(const float* pre, float* dact, size_t n);
  void (*softmax)(float* x, size_t n);
  void (*softmax_backward)(const float* p, float* ds, size_t n, float scale);
  float (*lin_step_backward)(float* dS, const float* S, const float* Sprev, const float* q,
                             const float* k, const float* v, const float* dO, float anext,
                             float c, size_t dk, size_t hd, float* dq, float* dkv, float* dv);
  void (*adamw)(float* w, float* m, float* v, const float* g, size_t n, float gscale, float b1,
                float b2, float lr, float decay, float bc1, float bc2, float eps);
  void (*rmsnorm_backward)(const float* x, const float* g, float inv, const float* dy, size_t n,
                           float* dx, float* dg);
  double (*sum_squares)(const float* g, size_t n);
};

const Bodies& scalar_bodies();
const Bodies& avx2_bodies();    // AVX2 + FMA
const Bodies& avx512_bodies();  // AVX-512F + FMA

}  // namespace amxqa::train::simd
