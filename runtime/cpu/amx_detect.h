// amx_detect.h — the project's own AMX detection (Debian's cpuinfo predates
// AMX): CPUID.(7,0):EDX AMX-TILE/BF16/INT8, XCR0 bits 17+18, a non-zero
// palette count in CPUID leaf 0x1D, and Linux arch_prctl(ARCH_REQ_XCOMP_PERM,
// XFEATURE_XTILEDATA). Computed once per process, thread-safely.
#pragma once

namespace amxqa {

struct AmxStatus {
  bool usable = false;   // every check passed and the OS granted tile data
  char reason[96] = {};  // "AMX: used" or "AMX: not used: CPU lacks AMX-TILE", ...
};

const AmxStatus& amx_status();

}  // namespace amxqa
