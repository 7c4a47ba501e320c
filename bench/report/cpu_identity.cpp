// cpu_identity.cpp — see cpu_identity.h.
#include "report/cpu_identity.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif
#include <cpuinfo.h>

#include <cstdio>
#include <cstring>

#include "amxqa.h"
#include "amxqa_paths.h"

#ifndef AMXQA_BENCH_CXX_FLAGS
#define AMXQA_BENCH_CXX_FLAGS ""
#endif
#ifndef AMXQA_BENCH_BUILD_TYPE
#define AMXQA_BENCH_BUILD_TYPE ""
#endif
#ifndef AMXQA_GIT_COMMIT_CONFIGURED
#define AMXQA_GIT_COMMIT_CONFIGURED "unknown"
#endif

namespace amxqa::bench {
namespace {

struct Regs {
  unsigned a = 0, b = 0, c = 0, d = 0;
};

// All zeros where there is no CPUID (aarch64: the vendor and brand are "").
Regs cpuid([[maybe_unused]] unsigned leaf, [[maybe_unused]] unsigned sub = 0) {
  Regs r;
#if defined(__x86_64__) || defined(__i386__)
  if (!__get_cpuid_count(leaf, sub, &r.a, &r.b, &r.c, &r.d)) r = Regs{};
#endif
  return r;
}

std::string trim(const std::string& s) {
  size_t b = 0, e = s.size();
  while (b < e && (s[b] == ' ' || s[b] == '\0')) ++b;
  while (e > b && (s[e - 1] == ' ' || s[e - 1] == '\0')) --e;
  return s.substr(b, e - b);
}

std::string brand_string() {
  char brand[49] = {};
  if (cpuid(0x80000000).a < 0x80000004) return "";
  for (unsigned i = 0; i < 3; ++i) {
    const Regs r = cpuid(0x80000002 + i);
    std::memcpy(brand + 16 * i, &r.a, 4);
    std::memcpy(brand + 16 * i + 4, &r.b, 4);
    std::memcpy(brand + 16 * i + 8, &r.c, 4);
    std::memcpy(brand + 16 * i + 12, &r.d, 4);
  }
  return trim(brand);
}

// First line of a shell command's output, "" on failure.
std::string command_line_output(const std::string& cmd) {
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return "";
  char buf[256] = {};
  const bool got = std::fgets(buf, sizeof buf, p) != nullptr;
  pclose(p);
  if (!got) return "";
  std::string s(buf);
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
  return s;
}

uint32_t fnv1a32(const std::string& s) {
  uint32_t h = 2166136261u;
  for (unsigned char c : s) h = (h ^ c) * 16777619u;
  return h;
}

std::string vendor_slug(const std::string& vendor) {
  if (vendor == "GenuineIntel") return "intel";
  if (vendor == "AuthenticAMD") return "amd";
  if (vendor == "HygonGenuine") return "hygon";
  std::string s;
  for (char c : vendor) s += (c >= 'A' && c <= 'Z') ? char(c - 'A' + 'a') : c;
  return model_slug("", s);
}

}  // namespace

std::string model_slug(const std::string& vendor_slug, const std::string& model_name) {
  std::string low;
  for (char c : model_name) low += (c >= 'A' && c <= 'Z') ? char(c - 'A' + 'a') : c;
  const size_t at = low.find('@');  // "... CPU @ 2.10GHz"
  if (at != std::string::npos) low.resize(at);
  for (const char* mark : {"(r)", "(tm)", "(c)"}) {
    size_t p;
    while ((p = low.find(mark)) != std::string::npos) low.erase(p, std::strlen(mark));
  }
  // Split into alphanumeric words; drop noise words and the vendor's name.
  std::vector<std::string> words;
  std::string w;
  for (char c : low + " ") {
    if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')) {
      w += c;
    } else if (!w.empty()) {
      if (w != "processor" && w != "cpu" && w != vendor_slug) words.push_back(w);
      w.clear();
    }
  }
  std::string slug;
  for (const std::string& x : words) slug += (slug.empty() ? "" : "-") + x;
  return slug.empty() ? "unknown" : slug;
}

CpuIdentity query_cpu_identity() {
  CpuIdentity id;
  const Regs v = cpuid(0);
  char vendor[13] = {};
  std::memcpy(vendor, &v.b, 4);
  std::memcpy(vendor + 4, &v.d, 4);
  std::memcpy(vendor + 8, &v.c, 4);
  id.vendor = vendor;
  id.model_name = brand_string();
  const Regs f = cpuid(1);
  const unsigned base_family = (f.a >> 8) & 0xF, ext_family = (f.a >> 20) & 0xFF;
  id.family = base_family == 0xF ? base_family + ext_family : base_family;
  id.model =
      ((f.a >> 4) & 0xF) | ((base_family == 0x6 || base_family == 0xF) ? ((f.a >> 12) & 0xF0) : 0);
  id.stepping = f.a & 0xF;

  if (cpuinfo_initialize()) {
    if (const cpuinfo_package* p = cpuinfo_get_package(0)) id.package_name = p->name;
    id.cores = cpuinfo_get_cores_count();
    id.logical_processors = cpuinfo_get_processors_count();
    if (const cpuinfo_cache* c = cpuinfo_get_l1d_cache(0)) id.l1d_bytes = c->size;
    if (const cpuinfo_cache* c = cpuinfo_get_l2_cache(0)) id.l2_bytes = c->size;
    if (const cpuinfo_cache* c = cpuinfo_get_l3_cache(0)) id.l3_bytes = c->size;
    id.isa_flags = {
        {"sse4_2", cpuinfo_has_x86_sse4_2()},
        {"avx", cpuinfo_has_x86_avx()},
        {"avx2", cpuinfo_has_x86_avx2()},
        {"fma3", cpuinfo_has_x86_fma3()},
        {"f16c", cpuinfo_has_x86_f16c()},
        {"avx512f", cpuinfo_has_x86_avx512f()},
        {"avx512bw", cpuinfo_has_x86_avx512bw()},
        {"avx512vl", cpuinfo_has_x86_avx512vl()},
        {"avx512dq", cpuinfo_has_x86_avx512dq()},
        {"avx512vnni", cpuinfo_has_x86_avx512vnni()},
        {"avx512bf16", cpuinfo_has_x86_avx512bf16()},
    };
  }
  // Debian's libcpuinfo predates AMX and AVX-VNNI: read those bits directly.
  const Regs l7 = cpuid(7, 0), l71 = cpuid(7, 1);
  id.isa_flags.emplace_back("avx_vnni", (l71.a >> 4) & 1);
  id.isa_flags.emplace_back("amx_bf16", (l7.d >> 22) & 1);
  id.isa_flags.emplace_back("amx_tile", (l7.d >> 24) & 1);
  id.isa_flags.emplace_back("amx_int8", (l7.d >> 25) & 1);

  amxqa_cpu_info info = amxqa_cpu_info_init();
  if (amxqa_cpu_query(&info) == AMXQA_OK) {
    id.best_isa = amxqa_isa_name(info.best);
    id.amx_usable = info.has_amx != 0;
    id.amx_reason = info.amx_reason;
    id.max_isa_env = info.max_isa_env;
  }

  // The checkout this binary sits in (build/bin), found at run time; a moved
  // or installed binary falls back to the commit recorded at configure time.
  const std::string src = amxqa::paths::checkout_root();
  if (!src.empty()) id.git_commit = command_line_output("git -C '" + src + "' rev-parse HEAD 2>/dev/null");
  if (id.git_commit.empty())
    id.git_commit = AMXQA_GIT_COMMIT_CONFIGURED;
  else
    id.git_dirty = !command_line_output("git -C '" + src +
                                        "' status --porcelain --untracked-files=no 2>/dev/null")
                        .empty();
#if defined(__clang__)
  id.compiler = std::string("clang ") + __clang_version__;
#elif defined(__GNUC__)
  id.compiler = std::string("gcc ") + __VERSION__;
#else
  id.compiler = "unknown";
#endif
  id.cxx_flags = trim(AMXQA_BENCH_CXX_FLAGS);
  id.build_type = AMXQA_BENCH_BUILD_TYPE;

  std::string flags;
  for (const auto& [name, on] : id.isa_flags)
    if (on) flags += name + ",";
  char hash[16];
  std::snprintf(hash, sizeof hash, "%08x", fnv1a32(flags));
  const std::string vs = vendor_slug(id.vendor);
  id.cpu_id = vs + "-" + model_slug(vs, id.model_name.empty() ? id.package_name : id.model_name) +
              "-" + hash;
  return id;
}

}  // namespace amxqa::bench
