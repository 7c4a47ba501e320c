// amxqa_paths.cpp — see amxqa_paths.h.
#include "amxqa_paths.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>

namespace amxqa::paths {

std::string exe_dir() {
  char buf[4096];
  const ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return "";
  const std::string p(buf, static_cast<size_t>(n));
  const size_t slash = p.rfind('/');
  return slash == std::string::npos ? "" : p.substr(0, slash);
}

bool is_file(const std::string& path) {
  struct stat st;
  return !path.empty() && stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

namespace {

bool is_checkout(const std::string& root) {
  return is_file(root + "/include/amxqa.h") && is_file(root + "/sdk/models/default.amxqa");
}

// CMAKE_HOME_DIRECTORY of the build folder's CMakeCache.txt, "" if none.
std::string configured_source(const std::string& build_dir) {
  std::ifstream cache(build_dir + "/CMakeCache.txt");
  const std::string key = "CMAKE_HOME_DIRECTORY:INTERNAL=";
  for (std::string line; std::getline(cache, line);)
    if (line.compare(0, key.size(), key) == 0) return line.substr(key.size());
  return "";
}

}  // namespace

std::string checkout_root() {
  const std::string dir = exe_dir();
  if (dir.empty()) return "";
  if (is_checkout(dir + "/../..")) return dir + "/../..";
  const std::string source = configured_source(dir + "/..");
  return !source.empty() && is_checkout(source) ? source : "";
}

std::string default_model() {
  if (const char* env = std::getenv("AMXQA_MODEL"); env && *env) return env;
  const std::string dir = exe_dir();
  const std::string installed = dir.empty() ? "" : dir + "/../share/amxqa/default.amxqa";
  if (is_file(installed)) return installed;
  const std::string root = checkout_root();
  if (!root.empty()) return root + "/sdk/models/default.amxqa";
  return installed;
}

}  // namespace amxqa::paths
