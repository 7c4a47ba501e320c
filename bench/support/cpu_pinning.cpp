// cpu_pinning.cpp — see cpu_pinning.h.
#include "support/cpu_pinning.h"

#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <string>

namespace amxqa::bench {
namespace {

cpu_set_t g_start_mask;       // the affinity the process started with
bool g_have_start_mask = false;

int choose_cpu() {
  if (const char* env = std::getenv("AMXQA_BENCH_CPU")) {
    char* end = nullptr;
    const long cpu = std::strtol(env, &end, 10);
    if (end != env && *end == '\0' && cpu >= 0 && cpu < CPU_SETSIZE) return static_cast<int>(cpu);
    std::fprintf(stderr, "amxqa-bench: ignoring AMXQA_BENCH_CPU=%s (not a core number)\n", env);
  }
  if (g_have_start_mask) {
    for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
      if (CPU_ISSET(cpu, &g_start_mask)) return cpu;
    }
  }
  return 0;
}

}  // namespace

void pin_to_one_core() {
  CPU_ZERO(&g_start_mask);
  g_have_start_mask = sched_getaffinity(0, sizeof g_start_mask, &g_start_mask) == 0;
  const int cpu = choose_cpu();
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(cpu, &one);
  if (sched_setaffinity(0, sizeof one, &one) == 0) {
    benchmark::AddCustomContext("pinned_cpu", std::to_string(cpu));
  } else {
    std::perror("amxqa-bench: sched_setaffinity (running unpinned)");
    benchmark::AddCustomContext("pinned_cpu", "none");
  }
}

CoreSpread::CoreSpread(unsigned cores) {
  CPU_ZERO(&pinned_);
  if (cores <= 1 || sched_getaffinity(0, sizeof pinned_, &pinned_) != 0) return;
  // Unpinned (the pin failed, or this is not amxqa-bench's main thread):
  // the threads already share whatever cores the scheduler gives them.
  if (CPU_COUNT(&pinned_) != 1) {
    cores_ = unsigned(CPU_COUNT(&pinned_));
    return;
  }
  cpu_set_t wide = pinned_;
  unsigned have = 1;
  for (int cpu = 0; g_have_start_mask && cpu < CPU_SETSIZE && have < cores; ++cpu) {
    if (CPU_ISSET(cpu, &g_start_mask) && !CPU_ISSET(cpu, &wide)) {
      CPU_SET(cpu, &wide);
      ++have;
    }
  }
  if (have > 1 && sched_setaffinity(0, sizeof wide, &wide) == 0) {
    widened_ = true;
    cores_ = have;
  }
}

CoreSpread::~CoreSpread() {
  if (widened_) sched_setaffinity(0, sizeof pinned_, &pinned_);
}

}  // namespace amxqa::bench
