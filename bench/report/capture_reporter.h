// capture_reporter.h — the harness's Google Benchmark reporter during a run.
// It forwards every run to the ordinary console reporter (with the kernel
// roofline fractions added, so the terminal shows them), records the same
// runs as Google Benchmark's own JSON (the file `--benchmark_out` would
// write, both phases in one document), and keeps phase 1's runs parsed so
// that phase 2's benchmarks can read the rooflines (rooflines.h).
#pragma once
#include <benchmark/benchmark.h>

#include <sstream>
#include <string>
#include <vector>

#include "report/result_set.h"

namespace amxqa::bench {

class CaptureReporter : public benchmark::BenchmarkReporter {
 public:
  CaptureReporter();
  bool ReportContext(const Context& context) override;
  void ReportRuns(const std::vector<Run>& runs) override;
  void Finalize() override { console_.Finalize(); }  // once per phase

  // The runs so far, as results_from_gbench would read them.
  const ResultSet& live() const { return live_; }

  // Ends the JSON document and returns it (call once, after the last phase).
  std::string finish_gbench_json();

 private:
  benchmark::ConsoleReporter console_;
  benchmark::JSONReporter json_;
  std::ostringstream json_text_;
  bool context_written_ = false;
  ResultSet live_;
};

// A Google Benchmark run as result_set.h's BenchResult.
BenchResult to_result(const benchmark::BenchmarkReporter::Run& run);

}  // namespace amxqa::bench
