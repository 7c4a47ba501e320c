// canonical_i8_steps.h — canonical_i8.h's steps over whole rows, for kernels
// that quantise into panels of their own layout: the AMX int8 tiles
// (amx/amx_gemm_impl.h, real and emulated alike). AVX-512 where the CPU has
// it (every AMX CPU does), plain loops elsewhere; the same bits either way,
// since each step is elementwise or an exact max.
#pragma once
#include <cstddef>
#include <cstdint>

namespace amxqa::canonical_i8 {

struct Steps {
  // Step 1: sx of the row x[0..k).
  float (*row_scale)(const float* x, size_t k);
  // Step 2: q[c] for x[0..k) with the row's sx; writes exactly k bytes.
  void (*quantize)(const float* x, size_t k, float sx, int8_t* q);
  // Step 4: y[j] = sw[j] · (sx · float(acc[j])) for j < n.
  void (*dequantize)(const int32_t* acc, size_t n, float sx, const float* sw, float* y);
};

// The fastest steps this CPU runs (chosen once).
const Steps& steps();
// The plain loops (canonical_i8.h as written), for tests.
const Steps& steps_scalar();

}  // namespace amxqa::canonical_i8
