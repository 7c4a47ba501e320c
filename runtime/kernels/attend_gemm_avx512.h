// attend_gemm_avx512.h — kernels.h's attend_gemm (prefill attention's two f32
// products, in the canonical order) with zmm lanes: 32 columns of C per panel.
// The AVX-512 table (and the AMX table, which delegates to it) runs it on every
// AVX-512 CPU: on a Zen 4 core, whose zmm FMA is two ymm halves, it matched
// the ymm kernel (BM_attend_gemm_zmm_avx512 106 / 99 GFLOP/s against 103 / 99),
// and a core with two 512-bit FMA ports runs it at twice the ymm rate.
#pragma once
#include <cstddef>

namespace amxqa {

void attend_gemm_avx512(bool trans_b, size_t m, size_t n, size_t k, float alpha, const float* A,
                        size_t lda, const float* B, size_t ldb, float* C, size_t ldc,
                        size_t causal);

}  // namespace amxqa
