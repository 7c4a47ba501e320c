// main() of amxqa-bench. Every bench_*.cpp holds only benchmarks; this file
// runs them and writes the per-CPU result files.
//
//   amxqa-bench [--quick] [--out-dir DIR] [--no-report] [--benchmark_* flags]
//   amxqa-bench compare A.json B.json
//   amxqa-bench report FILE.gbench.json [--out-dir DIR]
//
// A run has two phases. Phase 1 measures the machine's ceilings (compute
// peaks, read bandwidth by buffer size: report/rooflines.h); phase 2 runs
// everything else, whose counters then include roofline fractions. Both
// phases are recorded as one Google Benchmark JSON document; afterwards the
// post-processor (report/report_files.h) writes <cpu-id>.gbench.json (that
// document) and <cpu-id>.{json,md,svg} from it, as `amxqa-bench report` does.
//
// --quick: short minimum times, one repetition, a few passages: well under a
// minute. Otherwise: 5 repetitions reported as aggregates (medians are used).
// Explicit --benchmark_min_time / --benchmark_repetitions /
// --benchmark_report_aggregates_only flags win over both defaults.
//
// libamxqa is a one-core library, so figures are taken on one core
// (support/cpu_pinning.h: AMXQA_BENCH_CPU, else the first allowed core); only
// the trainer's threads:N rows spread over N cores.
#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <ctime>
#include <string>
#include <vector>

#include "report/bench_options.h"
#include "report/capture_reporter.h"
#include "report/compare.h"
#include "report/cpu_identity.h"
#include "report/report_files.h"
#include "report/rooflines.h"
#include "report/summary.h"
#include "support/cpu_pinning.h"
#include "support/reference_model.h"
#include "support/rss_probe.h"

using namespace amxqa::bench;

namespace {

void print_help() {
  benchmark::PrintDefaultHelp();
  std::fprintf(
      stdout,
      "amxqa-bench options:\n"
      "  --quick            short run (< 60 s): small min time, 1 repetition, few passages\n"
      "  --out-dir DIR      where <cpu-id>.json/.md/.svg go (default: the current folder)\n"
      "  --no-report        do not write result files\n"
      "  compare A.json B.json   summary keys side by side with B/A\n"
      "  report F.gbench.json [--out-dir DIR]   rewrite the result files from a saved run\n"
      "  --benchmark_list_tests=true lists the benchmarks and writes no file\n"
      "env: AMXQA_BENCH_CPU (core), AMXQA_DATA (data root), AMXQA_BENCH_MODEL (model file)\n");
}

std::string load_average() {
  char buf[64] = {};
  if (FILE* f = std::fopen("/proc/loadavg", "r")) {
    if (!std::fgets(buf, sizeof buf, f)) buf[0] = '\0';
    std::fclose(f);
  }
  std::string s(buf);
  const size_t third_space = s.find(' ', s.find(' ', s.find(' ') + 1) + 1);
  return third_space == std::string::npos ? s : s.substr(0, third_space);
}

std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  char buf[32];
  std::tm tm;
  gmtime_r(&t, &tm);
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

// The model facts the result file records (the reference model, when this
// run built it).
Json model_facts() {
  Json model = Json::object();
  if (const ReferenceModel* m = reference_model_if_built()) {
    model["source"] = m->source;
    model["mapped_bytes"] = static_cast<uint64_t>(m->size);
    model["weight_dtype"] = std::string(m->info.weight_dtype);
    model["param_count"] = m->info.param_count;
    model["active_param_count"] = m->info.active_param_count;
    model["layer_kinds"] = std::string(m->info.layer_kinds);
    model["decode_weight_bytes_per_token"] = static_cast<uint64_t>(decode_weight_bytes(*m->model, 8));
  }
  return model;
}

// Google Benchmark's JSON of both phases, with this run's identity added to
// its context, goes through the same post-processor as `amxqa-bench report`.
int write_report(CaptureReporter& reporter, const CpuIdentity& cpu, const RunInfo& run) {
  Json doc;
  try {
    doc = parse_gbench_text(reporter.finish_gbench_json());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "amxqa-bench: Google Benchmark's JSON did not parse: %s\n", e.what());
    return 1;
  }
  doc["context"]["amxqa"] = run_context(cpu, run, model_facts());
  Report report;
  try {
    report = read_report(doc);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "amxqa-bench: %s\n", e.what());
    return 1;
  }
  const Summary& summary = report.summary;
  std::vector<std::string> written;
  std::string error;
  if (!write_report_files(run_options().out_dir, doc, report, &written, &error)) {
    std::fprintf(stderr, "amxqa-bench: %s\n", error.c_str());
    return 1;
  }
  std::printf("\nsummary (%s, backend %s):\n", summary.cpu.c_str(), summary.backend.c_str());
  for (const auto& [k, v] : summary_numbers(summary)) std::printf("  %-22s %.6g\n", k, v);
  for (const auto& [label, gbs] : summary.bw_gbs)
    std::printf("  bw_gbs.%-15s %.6g\n", label.c_str(), gbs);
  for (const std::string& path : written) std::printf("wrote %s\n", path.c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc >= 2 && !std::strcmp(argv[1], "compare")) return compare_main(argc - 2, argv + 2);
  if (argc >= 2 && !std::strcmp(argv[1], "report")) return report_main(argc - 2, argv + 2);
  if (argc >= 2 && !std::strcmp(argv[1], "rss-probe")) return rss_probe_main(argc - 1, argv + 1);
  std::string error;
  std::vector<std::string> args;
  switch (parse_run_options(argc, argv, &args, &error)) {
    case ParsedRun::kHelp:
      print_help();
      return 0;
    case ParsedRun::kError:
      std::fprintf(stderr, "amxqa-bench: %s (try 'amxqa-bench --help')\n", error.c_str());
      return 2;
    case ParsedRun::kRun:
      break;
  }
  RunInfo run;
  run.quick = quick_mode();
  for (int i = 0; i < argc; ++i) run.command_line += (i ? " " : "") + std::string(argv[i]);
  run.started_utc = utc_now();
  run.load_average_start = load_average();
  const auto t0 = std::chrono::steady_clock::now();

  // Identity first: the commit and AMX verdict of the code that is measured.
  const CpuIdentity cpu = query_cpu_identity();
  pin_to_one_core();
  run_late_registrations();
  std::vector<char*> bargv;
  for (std::string& a : args) bargv.push_back(a.data());
  bargv.push_back(nullptr);
  int bargc = static_cast<int>(args.size());
  benchmark::Initialize(&bargc, bargv.data(), print_help);
  if (benchmark::ReportUnrecognizedArguments(bargc, bargv.data())) return 1;

  CaptureReporter reporter;
  // Phase 1: the ceilings. Phase 2: the user's filter, or everything else.
  benchmark::RunSpecifiedBenchmarks(&reporter, kRooflineFilter);
  fill_rooflines(reporter.live());
  const std::string filter = benchmark::GetBenchmarkFilter();
  const bool everything = filter.empty() || filter == "." || filter == "all";
  benchmark::RunSpecifiedBenchmarks(
      &reporter, everything ? std::string("-") + kRooflineFilter : filter);  // "-": negated
  benchmark::Shutdown();

  run.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  run.harness_peak_rss_bytes = self_peak_rss_bytes();
  run.load_average_end = load_average();
  return run_options().report ? write_report(reporter, cpu, run) : 0;
}
