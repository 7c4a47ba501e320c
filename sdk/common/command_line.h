// command_line.h — how amxqa, amxqa-train and amxqa-bench read their
// arguments: a CLI11 app with the rules all three share, so a command only
// declares its options (bound to typed variables) and prints its own help.
#pragma once
#include <CLI/CLI.hpp>
#include <string>

namespace amxqa::command_line {

enum class Parsed { kRun, kHelp, kError };

// A CLI11 app whose single-value options keep the last value when repeated
// (as the tools always did; CLI11 would reject the repeat), with -h/--help.
// Each tool keeps its hand-curated help text, so CLI11's is never printed.
class App : public CLI::App {
 public:
  explicit App(const std::string& name);

  // Parses argv[first..argc). kHelp when -h/--help is given (before any
  // requirement is checked); kError with *error set to CLI11's one-line message
  // on an unknown option, a missing value, a bad number or an excluded pair.
  Parsed parse_args(int argc, char** argv, int first, std::string* error);
};

}  // namespace amxqa::command_line
