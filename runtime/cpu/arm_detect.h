// arm_detect.h — what an aarch64 CPU and its OS let the NEON tables use,
// from the kernel's HWCAP bits (getauxval(AT_HWCAP)): the kernel sets a bit
// only when the CPU has the feature and the OS enables it. Computed once per
// process, thread-safely. Elsewhere every flag is false and the reason "".
#pragma once

namespace amxqa {

struct ArmStatus {
  bool neon = false;     // Advanced SIMD (HWCAP_ASIMD): the "neon" table
  bool dotprod = false;  // SDOT/UDOT (HWCAP_ASIMDDP): the "neon-dotprod" table
  char reason[96] = {};  // "NEON: used; SDOT: not used: no dot product (HWCAP_ASIMDDP)", ...
};

const ArmStatus& arm_status();

}  // namespace amxqa
