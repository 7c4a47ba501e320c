// cli_args.h — the argument parser every amxqa subcommand shares: declared
// options (--name VALUE, or --name=VALUE), declared flags (--name), and
// positionals. Anything undeclared is an error, reported in one line.
#pragma once
#include <map>
#include <string>
#include <vector>

namespace amxqa::cli {

struct ArgSpec {
  std::vector<std::string> options;  // take a value, e.g. "model"
  std::vector<std::string> flags;    // booleans, e.g. "json"
  size_t min_positionals = 0, max_positionals = 0;
};

class Args {
 public:
  // Parses argv[first..argc). On failure error() is set; --help sets help().
  Args(const ArgSpec& spec, int argc, char** argv, int first);

  bool help() const { return help_; }
  const std::string& error() const { return error_; }
  bool has(const std::string& name) const { return values_.count(name) != 0; }
  bool flag(const std::string& name) const { return flags_.count(name) != 0; }
  std::string get(const std::string& name, const std::string& fallback = "") const;
  // Unsigned integer option; sets *ok=false (and keeps fallback) when malformed.
  unsigned long long get_uint(const std::string& name, unsigned long long fallback, bool* ok) const;
  const std::vector<std::string>& positionals() const { return positionals_; }

 private:
  std::map<std::string, std::string> values_;
  std::map<std::string, bool> flags_;
  std::vector<std::string> positionals_;
  std::string error_;
  bool help_ = false;
};

}  // namespace amxqa::cli
