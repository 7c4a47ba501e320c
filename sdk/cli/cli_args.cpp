#include "cli_args.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>

namespace amxqa::cli {

namespace {
bool contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}
}  // namespace

Args::Args(const ArgSpec& spec, int argc, char** argv, int first) {
  bool only_positionals = false;
  for (int i = first; i < argc; ++i) {
    std::string a = argv[i];
    if (only_positionals || a.size() < 2 || a[0] != '-' || a == "-") {
      positionals_.push_back(a);
      continue;
    }
    if (a == "--") {
      only_positionals = true;
      continue;
    }
    if (a == "--help" || a == "-h") {
      help_ = true;
      continue;
    }
    if (a.rfind("--", 0) != 0) {
      error_ = "unknown option '" + a + "' (options are spelled --name)";
      return;
    }
    std::string name = a.substr(2), value;
    bool inline_value = false;
    if (size_t eq = name.find('='); eq != std::string::npos) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
      inline_value = true;
    }
    if (contains(spec.flags, name)) {
      if (inline_value) {
        error_ = "--" + name + " takes no value";
        return;
      }
      flags_[name] = true;
    } else if (contains(spec.options, name)) {
      if (!inline_value) {
        if (i + 1 >= argc) {
          error_ = "--" + name + " needs a value";
          return;
        }
        value = argv[++i];
      }
      values_[name] = value;
    } else {
      error_ = "unknown option '--" + name + "'";
      return;
    }
  }
  if (help_) return;
  if (positionals_.size() < spec.min_positionals) {
    error_ = "missing argument (see --help)";
  } else if (positionals_.size() > spec.max_positionals) {
    error_ = "unexpected argument '" + positionals_[spec.max_positionals] + "'";
  }
}

std::string Args::get(const std::string& name, const std::string& fallback) const {
  auto it = values_.find(name);
  return it == values_.end() ? fallback : it->second;
}

unsigned long long Args::get_uint(const std::string& name, unsigned long long fallback, bool* ok) const {
  auto it = values_.find(name);
  if (it == values_.end()) return fallback;
  const std::string& s = it->second;
  char* end = nullptr;
  errno = 0;
  unsigned long long v = std::strtoull(s.c_str(), &end, 10);
  if (s.empty() || s[0] == '-' || errno != 0 || *end != '\0') {
    *ok = false;
    return fallback;
  }
  return v;
}

}  // namespace amxqa::cli
