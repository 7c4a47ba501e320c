// isa_select.cpp — backend selection: kernels_for_isa(), the AMXQA_MAX_ISA cap
// and amxqa_cpu_query(). x86 features come from libcpuinfo (which also checks
// that the OS saves the AVX/AVX-512 state); AMX comes from amx_detect.cpp
// because Debian's cpuinfo predates AMX; Arm's from arm_detect.cpp (HWCAP). Nothing here keeps mutable state:
// cpuinfo_initialize() and amx_status() are once-only and thread-safe.
#include "cpu/isa_select.h"

#include <cpuinfo.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "api/struct_size.h"
#include "cpu/amx_detect.h"
#include "cpu/arm_detect.h"
#include "kernels/kernels.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

namespace amxqa {
namespace {

struct CpuFeatures {
  bool avx2_fma = false, avx512 = false, avx512_bf16 = false, avx512_vnni = false;
};

CpuFeatures cpu_features() {
  CpuFeatures f;
  if (!cpuinfo_initialize()) return f;  // unknown CPU: scalar only
  f.avx2_fma = cpuinfo_has_x86_avx2() && cpuinfo_has_x86_fma3();
  f.avx512 = cpuinfo_has_x86_avx512f() && cpuinfo_has_x86_avx512bw() &&
             cpuinfo_has_x86_avx512vl() && cpuinfo_has_x86_avx512dq();
  f.avx512_bf16 = f.avx512 && cpuinfo_has_x86_avx512bf16();
  f.avx512_vnni = f.avx512 && cpuinfo_has_x86_avx512vnni();
  return f;
}

char lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

bool equals_nocase(const char* a, const char* b) {
  for (; *a && *b; ++a, ++b)
    if (lower(*a) != lower(*b)) return false;
  return *a == *b;
}

// Hardware ISAs from best to worst (each CPU has only one family).
constexpr amxqa_isa kByPreference[] = {AMXQA_ISA_AMX,          AMXQA_ISA_AVX512, AMXQA_ISA_AVX2,
                                       AMXQA_ISA_NEON_DOTPROD, AMXQA_ISA_NEON,   AMXQA_ISA_SCALAR};

enum class Family { scalar, x86, arm };
Family family(amxqa_isa isa) {
  if (isa >= AMXQA_ISA_AVX2 && isa <= AMXQA_ISA_AMX_EMULATED) return Family::x86;
  if (isa == AMXQA_ISA_NEON || isa == AMXQA_ISA_NEON_DOTPROD) return Family::arm;
  return Family::scalar;
}

// amxqa.h's rule: a cap orders the ISAs of its own family; SCALAR caps all.
bool cap_allows(amxqa_isa cap, amxqa_isa isa) {
  if (cap == AMXQA_ISA_AUTO || isa == AMXQA_ISA_SCALAR) return true;
  if (cap == AMXQA_ISA_SCALAR) return false;
  return family(cap) != family(isa) || isa <= cap;
}

amxqa_isa best_available(amxqa_isa cap) {
  for (amxqa_isa isa : kByPreference)
    if (cap_allows(cap, isa) && isa_available(isa)) return isa;
  return AMXQA_ISA_SCALAR;
}

}  // namespace

const Kernels* kernels_for_isa(int isa) {
  switch (isa) {
    case AMXQA_ISA_AUTO: return kernels_for_isa(best_available(AMXQA_ISA_AUTO));
    case AMXQA_ISA_SCALAR: return &kernels_scalar();
    case AMXQA_ISA_AVX2: return cpu_features().avx2_fma ? kernels_avx2() : nullptr;
    case AMXQA_ISA_AVX512: return cpu_features().avx512 ? kernels_avx512() : nullptr;
    case AMXQA_ISA_AMX:
      return (cpu_features().avx512 && amx_status().usable) ? kernels_amx() : nullptr;
    case AMXQA_ISA_AMX_EMULATED: return kernels_amx_emulated();
    case AMXQA_ISA_NEON: return arm_status().neon ? kernels_neon() : nullptr;
    case AMXQA_ISA_NEON_DOTPROD: return arm_status().dotprod ? kernels_neon_dotprod() : nullptr;
    default: return nullptr;
  }
}

bool isa_available(amxqa_isa isa) { return kernels_for_isa(isa) != nullptr; }

amxqa_isa max_isa_from_env(char* seen, size_t seen_cap, bool* bad) {
  const char* v = std::getenv("AMXQA_MAX_ISA");
  if (bad) *bad = false;
  if (seen && seen_cap) {
    seen[0] = '\0';
    if (v) {
      std::snprintf(seen, seen_cap, "%s", v);
    }
  }
  if (!v || !*v || equals_nocase(v, "auto")) return AMXQA_ISA_AUTO;
  if (equals_nocase(v, "amx")) return AMXQA_ISA_AMX;
  if (equals_nocase(v, "avx512")) return AMXQA_ISA_AVX512;
  if (equals_nocase(v, "avx2")) return AMXQA_ISA_AVX2;
  if (equals_nocase(v, "scalar")) return AMXQA_ISA_SCALAR;
  if (equals_nocase(v, "neon")) return AMXQA_ISA_NEON;
  if (equals_nocase(v, "neon-dotprod")) return AMXQA_ISA_NEON_DOTPROD;
  if (bad) *bad = true;
  return AMXQA_ISA_AUTO;
}

amxqa_status resolve_isa(amxqa_isa requested, amxqa_isa cap, amxqa_isa* out) {
  switch (requested) {
    case AMXQA_ISA_AUTO: *out = best_available(cap); return AMXQA_OK;
    case AMXQA_ISA_AMX_EMULATED:
      if (!isa_available(requested)) return AMXQA_ERR_UNSUPPORTED_ISA;
      *out = requested;
      return AMXQA_OK;
    case AMXQA_ISA_SCALAR:
    case AMXQA_ISA_AVX2:
    case AMXQA_ISA_AVX512:
    case AMXQA_ISA_AMX:
    case AMXQA_ISA_NEON:
    case AMXQA_ISA_NEON_DOTPROD:
      if (!isa_available(requested)) return AMXQA_ERR_UNSUPPORTED_ISA;
      *out = cap_allows(cap, requested) ? requested : best_available(cap);
      return AMXQA_OK;
  }
  return AMXQA_ERR_INVALID_ARGUMENT;
}

bool cpu_has_avx512_vnni() {
  static const bool vnni = cpu_features().avx512_vnni;
  return vnni;
}

bool cpu_zmm_fma_outruns_ymm() {
  static const bool outruns = [] {
#if defined(__x86_64__) || defined(__i386__)
    unsigned a = 0, b = 0, c = 0, d = 0;
    if (!__get_cpuid(0, &a, &b, &c, &d)) return true;
    const bool amd = b == 0x68747541u && d == 0x69746e65u && c == 0x444d4163u;  // "AuthenticAMD"
    if (!__get_cpuid(1, &a, &b, &c, &d)) return true;
    const unsigned base = (a >> 8) & 0xf, family = base + (base == 0xf ? (a >> 20) & 0xff : 0);
    return !(amd && family == 0x19);
#else
    return true;
#endif
  }();
  return outruns;
}

}  // namespace amxqa

extern "C" AMXQA_API amxqa_status amxqa_cpu_query(amxqa_cpu_info* out) {
  using namespace amxqa;
  if (!out) return AMXQA_ERR_NULL_ARGUMENT;
  if (!struct_size_ok(out)) return AMXQA_ERR_INVALID_ARGUMENT;
  amxqa_cpu_info full;
  std::memset(&full, 0, sizeof full);
  amxqa_cpu_info* info = &full;
#if defined(__x86_64__) || defined(__i386__)
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (__get_cpuid(0, &a, &b, &c, &d)) {  // vendor string is EBX, EDX, ECX
    std::memcpy(info->vendor + 0, &b, 4);
    std::memcpy(info->vendor + 4, &d, 4);
    std::memcpy(info->vendor + 8, &c, 4);
  }
#endif
  const CpuFeatures f = cpu_features();
  if (cpuinfo_initialize() && cpuinfo_get_packages_count() > 0) {
    std::snprintf(info->model_name, sizeof info->model_name, "%s", cpuinfo_get_package(0)->name);
  }
  info->has_avx2_fma = f.avx2_fma;
  info->has_avx512 = f.avx512;
  info->has_avx512_bf16 = f.avx512_bf16;
  info->has_avx512_vnni = f.avx512_vnni;
  const AmxStatus& amx = amx_status();
  info->has_amx = amx.usable && f.avx512;
  std::snprintf(info->amx_reason, sizeof info->amx_reason, "%s", amx.reason);
  const ArmStatus& arm = arm_status();
  info->has_neon = arm.neon;
  info->has_neon_dotprod = arm.dotprod;
  std::snprintf(info->arm_reason, sizeof info->arm_reason, "%s", arm.reason);
  const amxqa_isa cap = max_isa_from_env(info->max_isa_env, sizeof info->max_isa_env, nullptr);
  resolve_isa(AMXQA_ISA_AUTO, cap, &info->best);
  copy_out(out, full);
  return AMXQA_OK;
}
