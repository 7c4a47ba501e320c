// kernels_avx512_paths.h — named entry points to the AVX-512 table's
// alternative internal paths, so tests can exercise the path a CPU without
// AVX512-BF16 would take even on a CPU that has it.
#pragma once
#include <cstddef>

#include "kernels/kernels.h"

namespace amxqa {

// matmul with the weights widened to f32 while packing (any dtype/layout),
// then the f32 14×32 core: the AVX-512 table's path for bf16 weights when
// the CPU lacks vdpbf16ps, and its path for i8 weights. nullptr-safe only in
// the sense of the table: call it only where kernels_avx512() may run.
void matmul_avx512_widened(const WeightView& w, const float* X, size_t ldx, size_t m, float* Y,
                           size_t ldy);

// Mixed-precision sgemm (Kernels::sgemm's contract): op(A) and op(B) are
// rounded to bf16 (RNE) as they are packed and multiplied by vdpbf16ps into
// f32 accumulators, at twice the f32 core's products per instruction. The
// trainer's bf16 compute mode (the paper's "bf16 compute, fp32 master
// weights"). Returns false, touching nothing, when the CPU lacks AVX512-BF16.
bool sgemm_bf16_avx512(bool trans_a, bool trans_b, size_t m, size_t n, size_t k, float alpha,
                       const float* A, size_t lda, const float* B, size_t ldb, float beta,
                       float* C, size_t ldc);

}  // namespace amxqa
