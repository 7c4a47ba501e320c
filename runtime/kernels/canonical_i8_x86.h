// canonical_i8_x86.h — canonical_i8.h's vector kernels for int8 weights in
// the vnni4 layout: AVX2 (vpmaddwd, canonical_i8_avx2.cpp) and AVX-512 VNNI
// (vpdpbusd, canonical_i8_avx512.cpp), the i8 matvec, matmul and rows_dot of
// those two tables. Every one gives the scalar oracle's bits.
#pragma once
#include <cstddef>
#include <cstdint>

#include "kernels/kernels.h"

namespace amxqa::canonical_i8 {

// Whether the kernels below take w (vnni4; AVX2 up to 2048 columns, AVX-512
// up to 4096); the tables give any other i8 matrix to the scalar oracle,
// which computes the same bits.
bool fits_avx2(const WeightView& w);
bool fits_avx512(const WeightView& w);

// kernels.h's contracts, for w.dtype == i8 and fits_<isa>(w).
void matvec_avx2(const WeightView& w, const float* x, float* y);
void matmul_avx2(const WeightView& w, const float* X, size_t ldx, size_t m, float* Y,
                 size_t ldy);
void rows_dot_avx2(const WeightView& w, const uint32_t* ids, size_t n, const float* x,
                   float* out);
// kernels.h's matmul_shared, for i8 weights that all fit, of the same cols
// and (AVX2: its 7- and 8-bit kernels quantise differently) the same bits.
void matmul_shared_avx2(const WeightView* ws, size_t n, const float* X, size_t ldx, size_t m,
                        float* const* Ys, const size_t* ldys);
void matmul_shared_avx512(const WeightView* ws, size_t n, const float* X, size_t ldx, size_t m,
                          float* const* Ys, const size_t* ldys);
void matvec_avx512(const WeightView& w, const float* x, float* y);
void matmul_avx512(const WeightView& w, const float* X, size_t ldx, size_t m, float* Y,
                   size_t ldy);
void rows_dot_avx512(const WeightView& w, const uint32_t* ids, size_t n, const float* x,
                     float* out);

// canonical_i8_steps.h's steps on AVX-512 (F + BW).
float row_scale_avx512(const float* x, size_t k);
void quantize_avx512(const float* x, size_t k, float sx, int8_t* q);
void dequantize_avx512(const int32_t* acc, size_t n, float sx, const float* sw, float* y);

}  // namespace amxqa::canonical_i8
