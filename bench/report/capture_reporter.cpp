// capture_reporter.cpp — see capture_reporter.h.
#include "report/capture_reporter.h"

#include <cmath>

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

}  // namespace

BenchResult to_result(const benchmark::BenchmarkReporter::Run& run) {
  BenchResult r;
  r.name = run.run_name.function_name;
  if (!run.run_name.args.empty()) r.name += "/" + run.run_name.args;
  if (run.run_type == benchmark::BenchmarkReporter::Run::RT_Aggregate) r.aggregate = run.aggregate_name;
  r.iterations = run.iterations;
  r.repetitions = run.repetitions;
  r.real_time = run.GetAdjustedRealTime();
  r.cpu_time = run.GetAdjustedCPUTime();
  r.time_unit = unit_name(run.time_unit);
  r.label = run.report_label;
  if (run.error_occurred) r.error = run.error_message.empty() ? "error" : run.error_message;
  for (const auto& [k, c] : run.counters) r.counters[k] = c.value;
  return r;
}

CaptureReporter::CaptureReporter() {
  json_.SetOutputStream(&json_text_);
  json_.SetErrorStream(&json_text_);
}

bool CaptureReporter::ReportContext(const Context& context) {
  if (!context_written_) json_.ReportContext(context);  // one document for both phases
  context_written_ = true;
  return console_.ReportContext(context);
}

void CaptureReporter::ReportRuns(const std::vector<Run>& runs) {
  json_.ReportRuns(runs);  // as measured: the post-processor adds the fractions
  std::vector<Run> shown;
  for (const Run& run : runs) {
    BenchResult r = to_result(run);
    // A skipped benchmark reports its error once per repetition: show one.
    const size_t before = live_.results().size();
    const double frac = kernel_roofline_frac(r), mfrac = maddubs_frac(r);
    live_.add(std::move(r));
    if (live_.results().size() == before) continue;
    shown.push_back(run);
    if (std::isfinite(frac)) shown.back().counters["roofline_frac"] = benchmark::Counter(frac);
    if (std::isfinite(mfrac)) shown.back().counters["maddubs_frac"] = benchmark::Counter(mfrac);
  }
  console_.ReportRuns(shown);
}

std::string CaptureReporter::finish_gbench_json() {
  json_.Finalize();
  return json_text_.str();
}

}  // namespace amxqa::bench
