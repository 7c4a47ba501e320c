// kernels_absent.cpp — the tables of other architectures, "not compiled in"
// (nullptr): runtime/CMakeLists.txt compiles the x86 tables (*_avx2.cpp,
// *_avx512.cpp) only for x86-64 and the Arm ones (*_neon.cpp, *_dotprod.cpp)
// only for aarch64. (kernels_amx.cpp has its own stubs: it also serves the
// tile peak probe.)
#include "kernels/kernels.h"

namespace amxqa {

#if !defined(__x86_64__)
const Kernels* kernels_avx2() { return nullptr; }
const Kernels* kernels_avx512() { return nullptr; }
#endif

#if !defined(__aarch64__)
const Kernels* kernels_neon() { return nullptr; }
const Kernels* kernels_neon_dotprod() { return nullptr; }
#endif

}  // namespace amxqa
