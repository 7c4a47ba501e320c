// sgemm_bf16_absent.cpp — sgemm_bf16_avx512 where sgemm_bf16_avx512.cpp is
// not compiled (not x86-64: runtime/CMakeLists.txt): no AVX512-BF16, so it
// returns false and the caller takes the f32 sgemm, as on an x86 CPU without it.
#include "kernels/training/sgemm_bf16.h"

#if !defined(__x86_64__)
namespace amxqa {
bool sgemm_bf16_avx512(bool, bool, size_t, size_t, size_t, float, const float*, size_t,
                       const float*, size_t, float, float*, size_t) {
  return false;
}
}  // namespace amxqa
#endif
