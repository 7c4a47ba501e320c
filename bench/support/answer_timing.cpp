// answer_timing.cpp — see answer_timing.h.
#include "support/answer_timing.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <ctime>

namespace amxqa::bench {

BenchSession::BenchSession(const amxqa_model* m, amxqa_isa isa) {
  amxqa_session_options opt;
  amxqa_session_options_default(&opt);
  opt.isa = isa;
  bytes = amxqa_session_size(m, &opt);
  if (bytes == 0) {
    status = AMXQA_ERR_INVALID_ARGUMENT;
    return;
  }
  mem = std::aligned_alloc(64, (bytes + 63) / 64 * 64);
  status = mem ? amxqa_session_init(m, &opt, mem, bytes, &s) : AMXQA_ERR_INTERNAL;
}

BenchSession::~BenchSession() {
  if (s) amxqa_session_finish(s);
  std::free(mem);
}

uint64_t thread_cpu_ns() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return uint64_t(ts.tv_sec) * 1000000000ull + uint64_t(ts.tv_nsec);
}

TimedAnswer timed_answer(amxqa_session* s, const QaPair& p, char* out, size_t out_size,
                         amxqa_answer_info* info) {
  TimedAnswer t;
  const auto w0 = std::chrono::steady_clock::now();
  const uint64_t c0 = thread_cpu_ns();
  t.status = amxqa_answer(s, p.question.data(), p.question.size(), p.passage.data(),
                          p.passage.size(), out, out_size, info);
  const uint64_t c1 = thread_cpu_ns();
  const auto w1 = std::chrono::steady_clock::now();
  t.wall_ms = std::chrono::duration<double, std::milli>(w1 - w0).count();
  t.cpu_ms = double(c1 - c0) * 1e-6;
  t.busy = t.wall_ms > 0 ? std::min(t.cpu_ms / t.wall_ms, 1.0) : 1.0;
  return t;
}

double percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  const double pos = p * double(v.size() - 1);
  const size_t lo = size_t(pos);
  const size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (v[hi] - v[lo]) * (pos - double(lo));
}

}  // namespace amxqa::bench
