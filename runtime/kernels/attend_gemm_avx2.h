// attend_gemm_avx2.h — kernels.h's attend_gemm (prefill attention's two f32
// products, in the canonical order) on AVX2 + FMA, for the AVX2 table. (The
// AVX-512 and AMX tables run attend_gemm_avx512.h's zmm kernel: the same bits.)
#pragma once
#include <cstddef>

namespace amxqa {

void attend_gemm_avx2(bool trans_b, size_t m, size_t n, size_t k, float alpha, const float* A,
                      size_t lda, const float* B, size_t ldb, float* C, size_t ldc,
                      size_t causal);

}  // namespace amxqa
