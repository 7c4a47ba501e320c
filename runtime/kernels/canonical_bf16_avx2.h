// canonical_bf16_avx2.h — canonical_bf16.h's product on AVX2 + FMA, for bf16
// weights in the plain or the vnni2 layout (even column count). The AVX2
// table runs these, and so does the AVX-512 table: the definition fixes the
// bits, and these are the vector kernels that reproduce them.
#pragma once
#include <cstddef>
#include <cstdint>

#include "kernels/kernels.h"

namespace amxqa::canonical_bf16 {

// kernels.h's matvec, rows_dot and matmul contracts, for w.dtype == bf16.
void matvec_avx2(const WeightView& w, const float* x, float* y);
void rows_dot_avx2(const WeightView& w, const uint32_t* ids, size_t n, const float* x,
                   float* out);
void matmul_avx2(const WeightView& w, const float* X, size_t ldx, size_t m, float* Y, size_t ldy);

}  // namespace amxqa::canonical_bf16
