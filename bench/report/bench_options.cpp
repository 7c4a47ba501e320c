// bench_options.cpp — see bench_options.h.
#include "report/bench_options.h"

#include <strings.h>

#include "command_line.h"

namespace amxqa::bench {
namespace {
std::vector<void (*)()>& late() {
  static std::vector<void (*)()> fns;
  return fns;
}

bool starts_with(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

// True for --benchmark_list_tests with a true value, as Google Benchmark
// reads it (no value, or anything but 0/false/f/no/n/off).
bool lists_tests(const std::string& a) {
  static const std::string kFlag = "--benchmark_list_tests";
  if (!starts_with(a, kFlag.c_str())) return false;
  if (a.size() == kFlag.size()) return true;
  if (a[kFlag.size()] != '=') return false;  // another flag with this prefix
  const char* v = a.c_str() + kFlag.size() + 1;
  for (const char* off : {"0", "false", "f", "no", "n", "off"})
    if (!strcasecmp(v, off)) return false;
  return true;
}
}  // namespace

ParsedRun parse_run_options(int argc, char** argv, std::vector<std::string>* benchmark_args, std::string* error) {
  RunOptions& o = run_options();
  // The current folder, not a path compiled in: an installed or moved binary
  // must not write into (or depend on) the checkout it was built from.
  o.out_dir = ".";
  bool no_report = false;
  command_line::App app("amxqa-bench");
  app.allow_extras();  // Google Benchmark's flags, checked by benchmark::Initialize
  app.add_flag("--quick", o.quick);
  app.add_flag("--no-report", no_report);
  app.add_option("--out-dir", o.out_dir);
  switch (app.parse_args(argc, argv, 1, error)) {
    case command_line::Parsed::kHelp:
      return ParsedRun::kHelp;
    case command_line::Parsed::kError:
      return ParsedRun::kError;
    case command_line::Parsed::kRun:
      break;
  }
  if (o.out_dir.empty()) {
    *error = "--out-dir is empty";
    return ParsedRun::kError;
  }
  o.report = !no_report;
  std::vector<std::string>& rest = *benchmark_args;
  rest = {argv[0]};
  bool min_time = false, reps = false, aggregates = false;
  for (const std::string& a : app.remaining()) {
    // Listing runs nothing, so its empty summary must not replace real results.
    if (lists_tests(a)) o.report = false;
    min_time |= starts_with(a, "--benchmark_min_time");
    reps |= starts_with(a, "--benchmark_repetitions");
    aggregates |= starts_with(a, "--benchmark_report_aggregates_only");
    rest.push_back(a);
  }
  if (o.quick) {
    if (!min_time) rest.push_back("--benchmark_min_time=0.01");
    if (!reps) rest.push_back("--benchmark_repetitions=1");
  } else {
    if (!min_time) rest.push_back("--benchmark_min_time=0.2");
    if (!reps) rest.push_back("--benchmark_repetitions=5");
    if (!aggregates) rest.push_back("--benchmark_report_aggregates_only=true");
  }
  return ParsedRun::kRun;
}

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
