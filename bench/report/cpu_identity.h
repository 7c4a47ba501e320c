// cpu_identity.h — who ran the benchmarks: CPU identity from libcpuinfo and
// raw CPUID, the library's own ISA/AMX verdict (amxqa_cpu_query), the git
// commit and the compiler. cpu_id names the result files.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace amxqa::bench {

struct CpuIdentity {
  std::string vendor;        // CPUID vendor string, e.g. "AuthenticAMD"
  std::string model_name;    // CPUID brand string, trimmed
  std::string package_name;  // libcpuinfo's package name
  uint32_t family = 0, model = 0, stepping = 0;
  uint32_t cores = 0, logical_processors = 0;
  uint64_t l1d_bytes = 0, l2_bytes = 0, l3_bytes = 0;
  std::vector<std::pair<std::string, bool>> isa_flags;  // name → present (CPU and OS)
  // amxqa_cpu_query()
  std::string best_isa, amx_reason, max_isa_env;
  bool amx_usable = false;
  // build and source
  std::string git_commit;  // "unknown" outside a git checkout
  bool git_dirty = false;
  std::string compiler, cxx_flags, build_type;

  std::string cpu_id;  // vendor-model-slug + 8 hex digits of the ISA flags
};

CpuIdentity query_cpu_identity();

// "AMD EPYC 9654 96-Core Processor" → "epyc-9654-96-core" (lower case, no
// trademark marks, no "processor"/"cpu", no clock speed, vendor word dropped).
std::string model_slug(const std::string& vendor_slug, const std::string& model_name);

}  // namespace amxqa::bench
