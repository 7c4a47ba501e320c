// sgemm_bf16.h — trainer-only GEMM kernels (library amxqa_training_kernels,
// not part of libamxqa; see sgemm_bf16_avx512.cpp, sgemm_bf16_tiles.cpp).
#pragma once
#include <cstddef>

#include "kernels/kernels.h"

namespace amxqa {

// Mixed-precision sgemm (Kernels::sgemm's contract): op(A) and op(B) are
// rounded to bf16 (RNE) as they are packed and multiplied by vdpbf16ps into
// f32 accumulators. Returns false, touching nothing, when the CPU lacks
// AVX512-BF16 (the caller then takes the f32 sgemm).
bool sgemm_bf16_avx512(bool trans_a, bool trans_b, size_t m, size_t n, size_t k, float alpha,
                       const float* A, size_t lda, const float* B, size_t ldb, float beta,
                       float* C, size_t ldc);

// The same contract on AMX tiles: `tiles` is kernels_amx() (real tiles) or
// kernels_amx_emulated() (the tests). op(B) is rounded to bf16 as a plain
// weight matrix and op(A) by the tile kernel, so with m >= 16 rows (the tile
// path) this is the product of the bf16-rounded operands accumulated in f32;
// with fewer rows the table's vector path multiplies f32 op(A) by the bf16
// op(B). Returns false, touching nothing, when tiles is null or a size is 0.
bool sgemm_bf16_tiles(const Kernels* tiles, bool trans_a, bool trans_b, size_t m, size_t n,
                      size_t k, float alpha, const float* A, size_t lda, const float* B,
                      size_t ldb, float beta, float* C, size_t ldc);

}  // namespace amxqa
