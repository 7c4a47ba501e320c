// args.h — the command line of amxqa-train: positional arguments plus
// `--flag`, `--key value` and `--key=value` options, checked against a list.
#pragma once
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace amxqa::train {

struct Args {
  std::vector<std::string> positional;
  std::map<std::string, std::vector<std::string>> options;  // repeated options keep every value
  bool help = false;

  bool has(const std::string& k) const { return options.count(k) != 0; }
  std::string get(const std::string& k, const std::string& def = "") const {
    auto it = options.find(k);
    return it == options.end() || it->second.empty() ? def : it->second.back();
  }
  std::vector<std::string> all(const std::string& k) const {
    auto it = options.find(k);
    return it == options.end() ? std::vector<std::string>{} : it->second;
  }
  long long get_int(const std::string& k, long long def) const;
};

// `flags` take no value, `valued` take one; anything else is an error
// (std::invalid_argument with a message naming it).
Args parse_args(int argc, char** argv, int first, const std::vector<std::string>& flags,
                const std::vector<std::string>& valued);

}  // namespace amxqa::train
