// canonical_bf16_avx512.h — canonical_bf16.h's prefill product on AVX-512F,
// for bf16 weights in the plain or the vnni2 layout (even column count). The
// AVX-512 table runs it for matmul; its matvec and rows_dot are the AVX2
// kernels of canonical_bf16_avx2.h (decode reads weights, it does not need
// wider FMAs).
#pragma once
#include <cstddef>

#include "kernels/kernels.h"

namespace amxqa::canonical_bf16 {

// kernels.h's matmul contract, for w.dtype == bf16: matmul_zmm where zmm
// FMAs outrun ymm ones, else canonical_bf16_avx2.h's matmul_avx2.
void matmul_avx512(const WeightView& w, const float* X, size_t ldx, size_t m, float* Y,
                   size_t ldy);

// The zmm kernel itself, whatever the core (the tests check it everywhere
// AVX-512F runs).
void matmul_zmm(const WeightView& w, const float* X, size_t ldx, size_t m, float* Y, size_t ldy);

}  // namespace amxqa::canonical_bf16
