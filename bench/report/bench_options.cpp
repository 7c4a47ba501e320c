// bench_options.cpp — see bench_options.h.
#include "report/bench_options.h"

#include <vector>

namespace amxqa::bench {
namespace {
std::vector<void (*)()>& late() {
  static std::vector<void (*)()> fns;
  return fns;
}
}  // namespace

RunOptions& run_options() {
  static RunOptions o;
  return o;
}

void add_late_registration(void (*register_fn)()) { late().push_back(register_fn); }

void run_late_registrations() {
  for (auto fn : late()) fn();
  late().clear();
}

}  // namespace amxqa::bench
