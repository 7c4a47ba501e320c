// answer_timing.h — what the answer benchmarks (bench_model.cpp on the
// reference model, bench_default_model.cpp on the shipped one) share: a
// session in aligned heap memory, the thread's CPU clock and percentiles.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "amxqa.h"
#include "support/reference_model.h"

namespace amxqa::bench {

// A session placed in aligned heap memory for the benchmark's lifetime;
// status says why s is null.
struct BenchSession {
  void* mem = nullptr;
  amxqa_session* s = nullptr;
  size_t bytes = 0;
  amxqa_status status = AMXQA_OK;
  BenchSession(const amxqa_model* m, amxqa_isa isa);
  ~BenchSession();
  BenchSession(const BenchSession&) = delete;
  BenchSession& operator=(const BenchSession&) = delete;
};

// CPU time of the calling thread: what the core spent, not inflated by other
// processes on a shared machine (equal to wall time on an idle one).
uint64_t thread_cpu_ns();

// One amxqa_answer, timed in thread CPU time and in wall time (ms). busy is
// cpu / wall capped at 1: the share of the wall clock the core spent on it,
// which scales the wall-clock prefill_ns / decode_ns of the answer info.
struct TimedAnswer {
  amxqa_status status = AMXQA_OK;
  double cpu_ms = 0, wall_ms = 0, busy = 1;
};
TimedAnswer timed_answer(amxqa_session* s, const QaPair& p, char* out, size_t out_size,
                         amxqa_answer_info* info);

// The p-quantile (0..1) of v, linearly interpolated; 0 for an empty v.
double percentile(std::vector<double> v, double p);

}  // namespace amxqa::bench
