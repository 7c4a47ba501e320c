// cmd_cpu.cpp — `amxqa cpu`: what the CPU offers, which backend AUTO picks, and why.
#include <cstdio>
#include <string>

#include "cli_common.h"
#include "commands.h"

namespace amxqa::cli {

namespace {

const char kHelp[] =
    "usage: amxqa cpu\n\n"
    "Prints the CPU's vector and matrix features as libamxqa sees them (CPUID and\n"
    "the OS's XSAVE state; on aarch64 the kernel's HWCAP), the backend that --isa\n"
    "auto runs, and why; including the AMX line (used, or the first check that\n"
    "failed) and on aarch64 the NEON/SDOT line. AMXQA_MAX_ISA caps it.\n";

const char* yes_no(uint8_t v) { return v ? "yes" : "no"; }

// The first reason the next-better backend was not chosen.
std::string why(const amxqa_cpu_info& c) {
  std::string cap = c.max_isa_env[0] ? std::string(", capped by AMXQA_MAX_ISA=") + c.max_isa_env : "";
  switch (c.best) {
    case AMXQA_ISA_AMX: return "AMX tiles are available and permitted" + cap;
    case AMXQA_ISA_AVX512:
      return (c.has_amx ? std::string("AMX is available") : std::string("no usable AMX")) +
             "; AVX-512F/BW/VL/DQ present" + (c.has_avx512_bf16 ? " with BF16" : "") + cap;
    case AMXQA_ISA_AVX2:
      return (c.has_avx512 ? std::string("AVX-512 is available") : std::string("no usable AVX-512")) +
             "; AVX2+FMA present" + cap;
    case AMXQA_ISA_NEON_DOTPROD: return "NEON with the dot product (SDOT) present" + cap;
    case AMXQA_ISA_NEON:
      return (c.has_neon_dotprod ? std::string("SDOT is available") : std::string("no SDOT")) +
             "; NEON present, int8 products on widening multiplies" + cap;
    case AMXQA_ISA_SCALAR:
      if (c.has_neon) return "NEON is available; the portable reference kernels run" + cap;
      return (c.has_avx2_fma ? std::string("AVX2 is available") : std::string("no AVX2+FMA")) +
             "; the portable reference kernels run" + cap;
    default: return "unknown" + cap;
  }
}

}  // namespace

int cmd_cpu(int argc, char** argv, int first) {
  const char* cmd = "cpu";
  App app("amxqa cpu");
  if (int rc = parse_args(cmd, app, argc, argv, first, kHelp); rc >= 0) return rc;

  amxqa_cpu_info c = amxqa_cpu_info_init();
  amxqa_status st = amxqa_cpu_query(&c);
  if (st != AMXQA_OK) return fail(cmd, std::string("amxqa_cpu_query: ") + amxqa_status_name(st));
  std::printf("cpu          %s (%s)\n", c.model_name[0] ? c.model_name : "(unknown model)",
              c.vendor[0] ? c.vendor : "unknown vendor");
  std::printf("avx2+fma     %s\n", yes_no(c.has_avx2_fma));
  std::printf("avx512       %s (F/BW/VL/DQ with OS support)\n", yes_no(c.has_avx512));
  std::printf("avx512-bf16  %s\n", yes_no(c.has_avx512_bf16));
  std::printf("avx512-vnni  %s\n", yes_no(c.has_avx512_vnni));
  std::printf("amx          %s\n", yes_no(c.has_amx));
  std::printf("%s\n", c.amx_reason[0] ? c.amx_reason : "AMX: (no reason reported)");
  if (c.arm_reason[0]) {  // aarch64
    std::printf("neon         %s\n", yes_no(c.has_neon));
    std::printf("neon-dotprod %s\n", yes_no(c.has_neon_dotprod));
    std::printf("%s\n", c.arm_reason);
  }
  std::printf("AMXQA_MAX_ISA %s\n", c.max_isa_env[0] ? c.max_isa_env : "(unset)");
  std::printf("backend      %s: %s\n", amxqa_isa_name(c.best), why(c).c_str());
  return kExitOk;
}

}  // namespace amxqa::cli
