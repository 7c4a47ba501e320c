// cpu_pinning.h — which cores a benchmark runs on.
//
// libamxqa is a one-core library, so amxqa-bench pins itself to one core at
// start-up (pin_to_one_core): the scheduler cannot migrate the thread
// mid-measurement (cold caches, frequency changes). The core is
// AMXQA_BENCH_CPU if set, else the first core this process may run on
// (taskset / cgroup limits are respected).
//
// The trainer's threaded rows (BM_train_step_*/threads:N) measure how a step
// scales over N cores, so they widen the calling thread's affinity to N cores
// while they construct their worker threads (which inherit it) and run:
// CoreSpread. The first core is the pinned one; the others are the next
// cores of the mask the process started with. Where fewer exist, `cores()`
// says how many the row really had, and the row reports it.
#pragma once

#include <sched.h>

namespace amxqa::bench {

// Pins the calling thread (at start-up: the process) to one core and records
// the mask it had before. Adds the "pinned_cpu" context to the run.
void pin_to_one_core();

class CoreSpread {
 public:
  explicit CoreSpread(unsigned cores);
  ~CoreSpread();  // back to the one pinned core
  CoreSpread(const CoreSpread&) = delete;
  CoreSpread& operator=(const CoreSpread&) = delete;
  unsigned cores() const { return cores_; }

 private:
  unsigned cores_ = 1;
  bool widened_ = false;
  cpu_set_t pinned_{};
};

}  // namespace amxqa::bench
