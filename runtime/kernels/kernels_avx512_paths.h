// kernels_avx512_paths.h — a named entry point to the AVX-512 table's
// alternative internal path, so tests can exercise the path a CPU without
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

}  // namespace amxqa
