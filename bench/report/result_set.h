// result_set.h — benchmark runs as the post-processor sees them: parsed from
// Google Benchmark's own JSON (what `--benchmark_out` writes, and what
// capture_reporter.h records during a run), with the kernel roofline
// fractions added once the rooflines are known.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "report/json_file.h"

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

class ResultSet {
 public:
  // Adds r, except a skipped benchmark's error repeated once per repetition.
  void add(BenchResult r);
  const std::vector<BenchResult>& results() const { return results_; }
  std::vector<BenchResult>& results() { return results_; }

  // The representative result of one benchmark: its median aggregate when
  // repetitions ran, else its last iteration run; nullptr if absent or failed.
  const BenchResult* find(const std::string& name) const;

 private:
  std::vector<BenchResult> results_;
};

// The "benchmarks" array of a Google Benchmark JSON document. Members other
// than Google Benchmark's own are the user counters. Throws
// std::runtime_error when the document has no such array.
ResultSet results_from_gbench(const Json& doc);

// Google Benchmark writes non-finite doubles as bare NaN / Infinity, which
// JSON lacks: parses its text with those read as null.
Json parse_gbench_text(const std::string& text);

// The roofline fraction of a kernel run (bench_kernels.cpp, bench_amx.cpp)
// from rooflines(): GFLOP/s against the compute peak of its ISA and dtype,
// GB/s against the read bandwidth of the level that holds its weights. NaN
// when the run has its own fraction, is not a kernel, or lacks a ceiling.
double kernel_roofline_frac(const BenchResult& r);

// The AVX2 int8 products (BM_matmul_i8*_avx2, BM_matmul_i7*_avx2) as a
// fraction of the vpmaddubsw-alone peak (BM_peak_int8_maddubs_avx2), the
// yardstick of issue 34; roofline_frac keeps judging AVX2 by the fp32 FMA
// peak. NaN for every other run or without the peak.
double maddubs_frac(const BenchResult& r);

// Sets counters["roofline_frac"] on every kernel run that lacks one, and
// counters["maddubs_frac"] where maddubs_frac is defined.
void annotate_kernel_rooflines(ResultSet& runs);

}  // namespace amxqa::bench
