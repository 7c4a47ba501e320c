// amx_detect.cpp — decides, once per process, whether real AMX tiles may be
// used. Every check of amx_detect.h must pass; the first one that fails names
// itself in AmxStatus::reason so a user can see *why* AMX was not used.
//
// Order matters: CPUID leaves are only read after the maximum leaf says they
// exist (old CPUs return garbage for unsupported leaves), XGETBV only after
// OSXSAVE says the OS enabled it (otherwise it is #UD), and arch_prctl last,
// because on Linux XCR0 advertises XTILEDATA but first use traps (XFD) until
// the process asked for permission.
#include "cpu/amx_detect.h"

#include <cstdint>
#include <cstdio>
#include <cstring>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#define AMXQA_DETECT_X86 1
#endif
#if defined(__linux__) && defined(__x86_64__)
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#define AMXQA_DETECT_LINUX_X86_64 1
#endif

namespace amxqa {
namespace {

void set_reason(AmxStatus& s, const char* why) {
  std::snprintf(s.reason, sizeof s.reason, "AMX: not used: %s", why);
}

#if defined(AMXQA_DETECT_X86)
struct Regs {
  unsigned a, b, c, d;
};

Regs cpuid(unsigned leaf, unsigned sub) {
  Regs r{0, 0, 0, 0};
  __cpuid_count(leaf, sub, r.a, r.b, r.c, r.d);
  return r;
}

uint64_t xgetbv0() {
  uint32_t lo = 0, hi = 0;
  // Encoded as bytes so no -mxsave flag is needed for this portable file.
  __asm__ volatile(".byte 0x0f, 0x01, 0xd0" : "=a"(lo), "=d"(hi) : "c"(0));
  return (static_cast<uint64_t>(hi) << 32) | lo;
}
#endif

AmxStatus detect() {
  AmxStatus s;
#if !defined(AMXQA_DETECT_X86)
  set_reason(s, "not an x86 CPU");
  return s;
#else
  const unsigned max_leaf = __get_cpuid_max(0, nullptr);
  if (max_leaf < 7) {
    set_reason(s, "CPU lacks CPUID leaf 7 (no AMX-TILE)");
    return s;
  }
  const Regs l7 = cpuid(7, 0);
  if (!(l7.d & (1u << 24))) {
    set_reason(s, "CPU lacks AMX-TILE");
    return s;
  }
  if (!(l7.d & (1u << 22))) {
    set_reason(s, "CPU lacks AMX-BF16");
    return s;
  }
  if (!(l7.d & (1u << 25))) {
    set_reason(s, "CPU lacks AMX-INT8");
    return s;
  }
  const Regs l1 = cpuid(1, 0);
  if (!(l1.c & (1u << 27))) {
    set_reason(s, "OS does not enable XSAVE (OSXSAVE clear)");
    return s;
  }
  const uint64_t xcr0 = xgetbv0();
  if (!(xcr0 & (1ull << 17))) {
    set_reason(s, "OS does not enable XTILECFG in XCR0");
    return s;
  }
  if (!(xcr0 & (1ull << 18))) {
    set_reason(s, "OS does not enable XTILEDATA in XCR0");
    return s;
  }
  if (max_leaf < 0x1D) {
    set_reason(s, "CPUID leaf 0x1D absent (no tile palette)");
    return s;
  }
  const Regs p0 = cpuid(0x1D, 0);
  if (p0.a < 1) {
    set_reason(s, "CPUID leaf 0x1D reports no palette");
    return s;
  }
  // Palette 1 must be at least the geometry the kernels are written for:
  // 8 tiles of 16 rows x 64 bytes.
  const Regs p1 = cpuid(0x1D, 1);
  const unsigned bytes_per_row = p1.b & 0xffffu, max_names = p1.b >> 16;
  const unsigned max_rows = p1.c & 0xffffu;
  if (bytes_per_row < 64 || max_names < 8 || max_rows < 16) {
    set_reason(s, "CPUID leaf 0x1D palette 1 is smaller than 8 tiles x 16 rows x 64 bytes");
    return s;
  }
#if defined(AMXQA_DETECT_LINUX_X86_64)
  constexpr long kArchReqXcompPerm = 0x1023;
  constexpr long kXfeatureXtiledata = 18;
  if (syscall(SYS_arch_prctl, kArchReqXcompPerm, kXfeatureXtiledata) != 0) {
    const int err = errno;
    char why[80];
    std::snprintf(why, sizeof why, "arch_prctl(ARCH_REQ_XCOMP_PERM) failed: %s",
                  std::strerror(err));
    set_reason(s, why);
    return s;
  }
#elif defined(__linux__)
  set_reason(s, "32-bit Linux cannot request XTILEDATA permission");
  return s;
#endif
  s.usable = true;
  std::snprintf(s.reason, sizeof s.reason, "AMX: used");
  return s;
#endif
}

}  // namespace

const AmxStatus& amx_status() {
  // A function-local static: initialised exactly once, thread-safely (C++11).
  static const AmxStatus status = detect();
  return status;
}

}  // namespace amxqa
