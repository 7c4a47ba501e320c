// sgemm_bf16.h — trainer-only GEMM kernels (library amxqa_training_kernels,
// not part of libamxqa; see sgemm_bf16_avx512.cpp).
#pragma once
#include <cstddef>

namespace amxqa {

// Mixed-precision sgemm (Kernels::sgemm's contract): op(A) and op(B) are
// rounded to bf16 (RNE) as they are packed and multiplied by vdpbf16ps into
// f32 accumulators. Returns false, touching nothing, when the CPU lacks
// AVX512-BF16 (the caller then takes the f32 sgemm).
bool sgemm_bf16_avx512(bool trans_a, bool trans_b, size_t m, size_t n, size_t k, float alpha,
                       const float* A, size_t lda, const float* B, size_t ldb, float beta,
                       float* C, size_t ldc);

}  // namespace amxqa
