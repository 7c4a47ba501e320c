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

  // For a tool with one usage text (amxqa-bench report / compare,
  // amxqa-make-test-model): parses as above; -h/--help prints usage on stdout
  // and returns 0, an error prints "<name>: <message>" and usage on stderr and
  // returns 2. Returns -1 when the command should run.
  int parse_or_usage(int argc, char** argv, int first, const char* usage);

  // An unsigned option (a count, a limit, a seed). CLI11 2.1 converts "-1" to
  // the largest value of the type, so a negative number is refused here.
  template <class T>
  CLI::Option* add_unsigned(const std::string& name, T& value) {
    return add_option(name, value)->check(non_negative_integer());
  }

 private:
  static const CLI::Validator& non_negative_integer();  // digits only
};

}  // namespace amxqa::command_line
