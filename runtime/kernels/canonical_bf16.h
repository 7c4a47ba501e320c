// canonical_bf16.h — the one definition of a product with bf16 weights,
// y[n] = W[n] · x, that every kernel table computes bit for bit, so that an
// answer never depends on the ISA (issue: the same answer on every backend).
//
// It is the arithmetic of AMX TDPBF16PS as the SDM defines it (and as the
// tile emulator implements it), because the tiles are the one backend whose
// summation order cannot be chosen; every other table follows them:
//   1. Each activation is rounded to bf16 (round to nearest even, NaN kept
//      quiet: f32_to_bf16), and every bf16 operand that is denormal reads as
//      a zero of its sign (DAZ).
//   2. The columns are taken 32 at a time (one 16 x 32 tile row: 16 column
//      pairs), the last chunk padded with zeros. Within a chunk, two partial
//      sums start at +0: `even` fuses x[2p]·w[2p] and `odd` x[2p+1]·w[2p+1]
//      for p = 0..15 in ascending order, one rounding each (the bf16 x bf16
//      product is exact in fp32).
//   3. y starts at +0, and each chunk adds (even + odd) to it: y = y + (e + o).
//   4. Every rounded result that is denormal becomes a zero of its sign (FTZ).
// The scalar table spells this out with the helpers below; SIMD tables run it
// with the lanes holding (output, parity) and MXCSR's DAZ and FTZ set for the
// duration of the product (FlushDenormals in their files). f32 weights are
// outside this definition (no tile computes them); int8 weights have their
// own, canonical_i8.h.
#pragma once
#include <cmath>
#include <cstddef>
#include <cstdint>

#include "kernels/kernels.h"

namespace amxqa::canonical_bf16 {

constexpr size_t kChunkCols = 32;   // columns per chunk: one TDPBF16PS
constexpr size_t kChunkPairs = 16;  // column pairs per chunk

// A denormal reads (DAZ) or rounds (FTZ) to a zero of the same sign.
// (Written on floats, so that compilers keep it branch-free in xmm registers.)
static inline float flush(float f) {
  return std::fabs(f) < 0x1p-126f ? std::copysign(0.0f, f) : f;
}

// Step 1 for an activation: bf16 rounding (f32_to_bf16), then DAZ.
static inline float activation(float f) { return flush(bf16_to_f32(f32_to_bf16(f))); }

// acc + a·b with one rounding, then FTZ (a, b flushed bf16 values). The
// product of two bf16 values is exact in fp32 while it stays in the normal
// range, and then a plain multiply and add is the fused operation; std::fma
// (a library call on targets without FMA) is needed only when the product of
// two non-zero values leaves that range (underflow, overflow, inf, NaN).
static inline float fused_step(float a, float b, float acc) {
  const float p = a * b;
  const float mag = p < 0.0f ? -p : p;
  if (!(mag >= 0x1p-126f && mag <= 0x1.fffffep127f) && a != 0.0f && b != 0.0f)
    return flush(std::fma(a, b, acc));
  return flush(p + acc);
}

}  // namespace amxqa::canonical_bf16
