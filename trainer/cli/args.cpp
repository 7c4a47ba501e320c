#include "cli/args.h"

#include <algorithm>
#include <cstdlib>

namespace amxqa::train {

long long Args::get_int(const std::string& k, long long def) const {
  std::string v = get(k);
  if (v.empty()) return def;
  char* end = nullptr;
  long long x = std::strtoll(v.c_str(), &end, 10);
  if (*end || x < 0) throw std::invalid_argument("--" + k + " expects a non-negative integer, got '" + v + "'");
  return x;
}

Args parse_args(int argc, char** argv, int first, const std::vector<std::string>& flags,
                const std::vector<std::string>& valued) {
  Args a;
  auto is = [](const std::vector<std::string>& v, const std::string& s) {
    return std::find(v.begin(), v.end(), s) != v.end();
  };
  for (int i = first; i < argc; ++i) {
    std::string s = argv[i];
    if (s == "-h" || s == "--help") {
      a.help = true;
      continue;
    }
    if (s == "-o") s = "--output";
    if (s.size() > 2 && s.compare(0, 2, "--") == 0) {
      std::string key = s.substr(2), value;
      bool has_value = false;
      size_t eq = key.find('=');
      if (eq != std::string::npos) {
        value = key.substr(eq + 1);
        key = key.substr(0, eq);
        has_value = true;
      }
      if (is(flags, key)) {
        if (has_value) throw std::invalid_argument("--" + key + " takes no value");
        a.options[key].push_back("1");
      } else if (is(valued, key)) {
        if (!has_value) {
          if (i + 1 >= argc) throw std::invalid_argument("--" + key + " needs a value");
          value = argv[++i];
        }
        a.options[key].push_back(value);
      } else {
        throw std::invalid_argument("unknown option " + s);
      }
    } else {
      a.positional.push_back(s);
    }
  }
  return a;
}

}  // namespace amxqa::train
