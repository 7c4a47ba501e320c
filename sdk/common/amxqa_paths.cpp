// amxqa_paths.cpp — see amxqa_paths.h.
#include "amxqa_paths.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>

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

std::string checkout_root() {
  const std::string dir = exe_dir();
  if (dir.empty()) return "";
  const std::string root = dir + "/../..";
  return is_file(root + "/include/amxqa.h") && is_file(root + "/sdk/models/default.amxqa") ? root : "";
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
