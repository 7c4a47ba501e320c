// arm_detect.cpp — see arm_detect.h.
#include "cpu/arm_detect.h"

#include <cstdio>

#if defined(__aarch64__) && defined(__linux__)
#include <sys/auxv.h>
#endif

namespace amxqa {
namespace {

ArmStatus detect() {
  ArmStatus s;
#if defined(__aarch64__) && defined(__linux__)
  // <asm/hwcap.h>'s values, spelled here so that no kernel header is needed.
  constexpr unsigned long kHwcapAsimd = 1ul << 1, kHwcapAsimdDp = 1ul << 20;
  const unsigned long hw = getauxval(AT_HWCAP);
  s.neon = (hw & kHwcapAsimd) != 0;
  s.dotprod = s.neon && (hw & kHwcapAsimdDp) != 0;
  std::snprintf(s.reason, sizeof s.reason, "%s; %s",
                s.neon ? "NEON: used" : "NEON: not used: no HWCAP_ASIMD",
                s.dotprod ? "SDOT: used"
                          : "SDOT: not used: no dot product (HWCAP_ASIMDDP)");
#elif defined(__aarch64__)
  // Not Linux: Advanced SIMD is architectural on aarch64; the dot product
  // is not asked for.
  s.neon = true;
  std::snprintf(s.reason, sizeof s.reason, "NEON: used; SDOT: not used: no HWCAP on this OS");
#endif
  return s;
}

}  // namespace

const ArmStatus& arm_status() {
  static const ArmStatus status = detect();
  return status;
}

}  // namespace amxqa
