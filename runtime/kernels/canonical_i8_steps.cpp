// canonical_i8_steps.cpp — see canonical_i8_steps.h. The plain loops are
// canonical_i8.h's inline steps; the AVX-512 ones live with the other AVX-512
// int8 code (canonical_i8_avx512.cpp), compiled with its flags.
#include "kernels/canonical_i8_steps.h"

#include "amxqa.h"
#include "cpu/isa_select.h"
#include "kernels/canonical_i8.h"
#include "kernels/canonical_i8_x86.h"

namespace amxqa::canonical_i8 {
namespace {

void quantize_scalar(const float* x, size_t k, float sx, int8_t* q) {
  const float inv = inverse(sx);
  for (size_t c = 0; c < k; ++c) q[c] = quantize(x[c], inv);
}

void dequantize_scalar(const int32_t* acc, size_t n, float sx, const float* sw, float* y) {
  for (size_t j = 0; j < n; ++j) y[j] = dequantize(acc[j], sx, sw[j]);
}

const Steps kScalar = {row_scale, quantize_scalar, dequantize_scalar};
#if defined(__x86_64__)
const Steps kAvx512 = {row_scale_avx512, quantize_avx512, dequantize_avx512};
#endif

}  // namespace

const Steps& steps_scalar() { return kScalar; }

const Steps& steps() {
#if defined(__x86_64__)
  static const Steps& chosen = isa_available(AMXQA_ISA_AVX512) ? kAvx512 : kScalar;
#else
  static const Steps& chosen = kScalar;  // AVX-512 steps are not in this build
#endif
  return chosen;
}

}  // namespace amxqa::canonical_i8
