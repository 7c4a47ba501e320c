// capture_reporter.cpp — see capture_reporter.h.
#include "report/capture_reporter.h"

#include "report/rooflines.h"

namespace amxqa::bench {
namespace {

const char* unit_name(benchmark::TimeUnit u) {
  switch (u) {
    case benchmark::kNanosecond:
      return "ns";
    case benchmark::kMicrosecond:
      return "us";
    case benchmark::kMillisecond:
      return "ms";
    default:
      return "s";
  }
}

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

}  // namespace

void annotate_kernel_roofline(benchmark::BenchmarkReporter::Run& run) {
  if (run.error_occurred || run.counters.count("roofline_frac")) return;
  if (run.run_type == benchmark::BenchmarkReporter::Run::RT_Aggregate &&
      run.aggregate_name != "mean" && run.aggregate_name != "median")
    return;  // a fraction of a standard deviation means nothing
  const std::string name = run.run_name.function_name;
  if (contains(name, "peak") || contains(name, "emulated") || contains(name, "read_bw")) return;
  const Rooflines& r = rooflines();
  double ceiling = 0.0, measured = 0.0;
  auto gflops = run.counters.find("GFLOP/s");
  auto gbs = run.counters.find("GB/s");
  if (gflops != run.counters.end()) {
    measured = gflops->second.value;
    auto bits = run.counters.find("weight_bits");
    const DType dt = bits != run.counters.end() ? (bits->second.value == 8    ? DType::i8
                                                   : bits->second.value == 16 ? DType::bf16
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
    measured = gbs->second.value;
    auto bytes = run.counters.find("bytes");
    const double b = bytes != run.counters.end() ? bytes->second.value : kernel_matvec_bytes(name);
    if (b > 0) ceiling = r.bandwidth_for(static_cast<uint64_t>(b));
  }
  if (ceiling > 0 && measured > 0)
    run.counters["roofline_frac"] = benchmark::Counter(measured / ceiling);
}

bool CaptureReporter::ReportContext(const Context& context) {
  return console_.ReportContext(context);
}

void CaptureReporter::ReportRuns(const std::vector<Run>& runs) {
  std::vector<Run> annotated;
  for (const Run& original : runs) {
    // A skipped benchmark reports its error once per repetition: keep one.
    if (original.error_occurred && is_repeated_error(original)) continue;
    annotated.push_back(original);
    Run& run = annotated.back();
    annotate_kernel_roofline(run);
    BenchResult r;
    r.name = run.run_name.function_name;
    if (!run.run_name.args.empty()) r.name += "/" + run.run_name.args;
    if (run.run_type == Run::RT_Aggregate) r.aggregate = run.aggregate_name;
    r.iterations = run.iterations;
    r.repetitions = run.repetitions;
    r.real_time = run.GetAdjustedRealTime();
    r.cpu_time = run.GetAdjustedCPUTime();
    r.time_unit = unit_name(run.time_unit);
    r.label = run.report_label;
    if (run.error_occurred) r.error = run.error_message.empty() ? "error" : run.error_message;
    for (const auto& [k, c] : run.counters) r.counters[k] = c.value;
    results_.push_back(std::move(r));
  }
  console_.ReportRuns(annotated);
}

bool CaptureReporter::is_repeated_error(const Run& run) const {
  std::string name = run.run_name.function_name;
  if (!run.run_name.args.empty()) name += "/" + run.run_name.args;
  for (const BenchResult& r : results_)
    if (r.name == name && !r.error.empty()) return true;
  return false;
}

const BenchResult* CaptureReporter::find(const std::string& name) const {
  const BenchResult* iteration = nullptr;
  for (const BenchResult& r : results_) {
    if (r.name != name || !r.error.empty()) continue;
    if (r.aggregate == "median") return &r;
    if (r.aggregate.empty()) iteration = &r;
  }
  return iteration;
}

}  // namespace amxqa::bench
