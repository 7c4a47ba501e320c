// bench_options.h — the harness's own command-line choices, parsed by main()
// before benchmark::Initialize and read by the benchmark files (a quick run
// bounds its passage counts and training steps).
#pragma once
#include <string>
#include <vector>

namespace amxqa::bench {

struct RunOptions {
  bool quick = false;   // --quick: the whole run in well under a minute
  bool report = true;   // --no-report or --benchmark_list_tests: write no result files
  std::string out_dir;  // --out-dir DIR (default: the current folder)
};

RunOptions& run_options();
inline bool quick_mode() { return run_options().quick; }

enum class ParsedRun { kRun, kHelp, kError };

// Parses argv (CLI11, sdk/common/command_line.h) into run_options(). Our own
// flags are taken out; everything else (the --benchmark_* flags) is left in
// *benchmark_args, after argv[0] and with the mode's Google Benchmark defaults
// added where the user gave none. kError sets *error.
ParsedRun parse_run_options(int argc, char** argv, std::vector<std::string>* benchmark_args, std::string* error);

// Benchmarks whose shape depends on the options (iteration counts, sizes)
// register from a callback that main() runs after parsing them.
void add_late_registration(void (*register_fn)());
void run_late_registrations();

}  // namespace amxqa::bench
