// capture_reporter.h — the harness's Google Benchmark reporter: it keeps every
// run in memory for the result files and the summary, adds a roofline_frac
// counter to kernel throughputs that lack one, and forwards everything to the
// ordinary console reporter so the terminal output stays familiar.
#pragma once
#include <benchmark/benchmark.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace amxqa::bench {

struct BenchResult {
  std::string name;       // function name + args, e.g. "BM_read_bw/32768"
  std::string aggregate;  // "" for an iteration run, else "mean", "median", ...
  int64_t iterations = 0;
  int64_t repetitions = 1;
  double real_time = 0, cpu_time = 0;  // per iteration, in time_unit
  std::string time_unit;               // "ns", "us", "ms", "s"
  std::string label;
  std::string error;                       // non-empty: the run was skipped with this message
  std::map<std::string, double> counters;  // final values (rates already per second)
};

class CaptureReporter : public benchmark::BenchmarkReporter {
 public:
  bool ReportContext(const Context& context) override;
  void ReportRuns(const std::vector<Run>& runs) override;
  void Finalize() override { console_.Finalize(); }

  const std::vector<BenchResult>& results() const { return results_; }

  // The representative result of one benchmark: its median aggregate when
  // repetitions ran, else its last iteration run; nullptr if absent or failed.
  const BenchResult* find(const std::string& name) const;

 private:
  bool is_repeated_error(const Run& run) const;
  benchmark::ConsoleReporter console_;
  std::vector<BenchResult> results_;
};

// Adds "roofline_frac" to a kernel run (bench_kernels.cpp, bench_amx.cpp)
// from rooflines(): GFLOP/s against the compute peak of its ISA and dtype,
// GB/s against the read bandwidth of the level that holds its weights.
void annotate_kernel_roofline(benchmark::BenchmarkReporter::Run& run);

}  // namespace amxqa::bench
