// result_set.cpp — see result_set.h.
#include "report/result_set.h"

#include <cmath>
#include <regex>
#include <set>
#include <stdexcept>

#include "report/rooflines.h"

namespace amxqa::bench {
namespace {

bool contains(const std::string& s, const char* part) { return s.find(part) != std::string::npos; }

// Weight bytes of bench_kernels.cpp's matvec case (a 2048 × 1024 matrix),
// used only when the run does not report its own "bytes" counter.
double kernel_matvec_bytes(const std::string& name) {
  const double elems = 2048.0 * 1024.0;
  if (contains(name, "_f32_")) return elems * 4;
  if (contains(name, "_bf16")) return elems * 2;
  if (contains(name, "_i8")) return elems;
  return 0.0;
}

// Google Benchmark's run_name without the run options it appends
// (/min_time:0.1, /iterations:1, /repeats:5, /threads:1, /real_time ...): the
// function name and its arguments, which is how the harness looks runs up.
std::string function_and_args(const std::string& run_name) {
  static const std::regex option(
      R"(/(min_time|min_warmup_time|iterations|repeats|threads):[^/]*|/(real_time|manual_time|process_time)(?=/|$))");
  return std::regex_replace(run_name, option, "");
}

double number_or_nan(const Json& v) { return v.is_number() ? v.get<double>() : std::nan(""); }

}  // namespace

void ResultSet::add(BenchResult r) {
  if (!r.error.empty())
    for (const BenchResult& b : results_)
      if (b.name == r.name && !b.error.empty()) return;
  results_.push_back(std::move(r));
}

const BenchResult* ResultSet::find(const std::string& name) const {
  const BenchResult* iteration = nullptr;
  for (const BenchResult& r : results_) {
    if (r.name != name || !r.error.empty()) continue;
    if (r.aggregate == "median") return &r;
    if (r.aggregate.empty()) iteration = &r;
  }
  return iteration;
}

Json parse_gbench_text(const std::string& text) {
  // Only values are bare words here: keys and strings are quoted, and a
  // quoted "NaN" is not followed by a comma or brace before its quote.
  static const std::regex bare(R"((:\s*)-?(NaN|Infinity|inf|nan)(\s*[,}\n]))");
  return Json::parse(std::regex_replace(text, bare, "$1null$3"));
}

ResultSet results_from_gbench(const Json& doc) {
  const Json* list = member(doc, "benchmarks");
  if (!list || !list->is_array()) throw std::runtime_error("no \"benchmarks\" array");
  // Google Benchmark's own members of a run; every other member is a counter.
  static const std::set<std::string> own = {
      "name", "family_index", "per_family_instance_index", "run_name", "run_type",
      "repetitions", "repetition_index", "threads", "iterations", "real_time", "cpu_time",
      "time_unit", "label", "error_occurred", "error_message", "aggregate_name",
      "aggregate_unit", "big_o", "rms", "skipped"};
  ResultSet out;
  for (const Json& b : *list) {
    if (!b.is_object()) continue;
    BenchResult r;
    r.name = function_and_args(b.value("run_name", b.value("name", std::string())));
    if (b.value("run_type", std::string()) == "aggregate")
      r.aggregate = b.value("aggregate_name", std::string());
    r.iterations = b.value("iterations", int64_t(0));
    r.repetitions = b.value("repetitions", int64_t(1));
    if (const Json* t = member(b, "real_time")) r.real_time = number_or_nan(*t);
    if (const Json* t = member(b, "cpu_time")) r.cpu_time = number_or_nan(*t);
    r.time_unit = b.value("time_unit", std::string("ns"));
    r.label = b.value("label", std::string());
    // error_occurred (Google Benchmark 1.7) or error_message alone (1.8's "skipped").
    if (b.value("error_occurred", false) || !b.value("error_message", std::string()).empty()) {
      r.error = b.value("error_message", std::string());
      if (r.error.empty()) r.error = "error";
    }
    for (const auto& [k, v] : b.items())
      if (!own.count(k) && (v.is_number() || v.is_null())) r.counters[k] = number_or_nan(v);
    out.add(std::move(r));
  }
  return out;
}

double kernel_roofline_frac(const BenchResult& run) {
  const double none = std::nan("");
  if (!run.error.empty() || run.counters.count("roofline_frac")) return none;
  if (!run.aggregate.empty() && run.aggregate != "mean" && run.aggregate != "median")
    return none;  // a fraction of a standard deviation means nothing
  const std::string& name = run.name;
  if (contains(name, "peak") || contains(name, "emulated") || contains(name, "read_bw")) return none;
  const Rooflines& r = rooflines();
  double ceiling = 0.0, measured = 0.0;
  auto gflops = run.counters.find("GFLOP/s");
  auto gbs = run.counters.find("GB/s");
  if (gflops != run.counters.end()) {
    measured = gflops->second;
    auto bits = run.counters.find("weight_bits");
    const DType dt = bits != run.counters.end() ? (bits->second == 8    ? DType::i8
                                                   : bits->second == 16 ? DType::bf16
                                                                        : DType::f32)
                     : contains(name, "i8") || contains(name, "int8") ? DType::i8
                     : contains(name, "bf16")                         ? DType::bf16
                                                                      : DType::f32;
    const amxqa_isa isa = contains(name, "amx")      ? AMXQA_ISA_AMX
                          : contains(name, "avx512") ? AMXQA_ISA_AVX512
                          : contains(name, "avx2")   ? AMXQA_ISA_AVX2
                          : contains(name, "scalar") ? AMXQA_ISA_SCALAR
                                                     : AMXQA_ISA_AUTO;
    ceiling = r.compute_peak(isa, dt);
  } else if (gbs != run.counters.end()) {
    measured = gbs->second;
    auto bytes = run.counters.find("bytes");
    const double b = bytes != run.counters.end() ? bytes->second : kernel_matvec_bytes(name);
    if (b > 0) ceiling = r.bandwidth_for(static_cast<uint64_t>(b));
  }
  return ceiling > 0 && measured > 0 ? measured / ceiling : none;
}

double maddubs_frac(const BenchResult& run) {
  const double none = std::nan("");
  const std::string& name = run.name;
  if (!run.error.empty() || run.counters.count("maddubs_frac")) return none;
  if (!run.aggregate.empty() && run.aggregate != "mean" && run.aggregate != "median") return none;
  if (name.rfind("BM_matmul_i", 0) != 0 || !contains(name, "_avx2")) return none;
  const auto gops = run.counters.find("GFLOP/s");
  const double peak = rooflines().int8_maddubs_gops;
  return gops != run.counters.end() && peak > 0 && gops->second > 0 ? gops->second / peak : none;
}

void annotate_kernel_rooflines(ResultSet& runs) {
  for (BenchResult& r : runs.results()) {
    const double f = kernel_roofline_frac(r);
    if (std::isfinite(f)) r.counters["roofline_frac"] = f;
    const double m = maddubs_frac(r);
    if (std::isfinite(m)) r.counters["maddubs_frac"] = m;
  }
}

}  // namespace amxqa::bench
