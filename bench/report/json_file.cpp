// json_file.cpp — see json_file.h.
#include "report/json_file.h"

#include <zlib.h>

#include <stdexcept>

namespace amxqa::bench {
namespace {

std::string read_file_maybe_gz(const std::string& path) {
  gzFile f = gzopen(path.c_str(), "rb");
  if (!f) throw std::runtime_error("cannot open " + path);
  std::string out;
  char buf[1 << 16];
  int n;
  while ((n = gzread(f, buf, sizeof buf)) > 0) out.append(buf, size_t(n));
  const bool bad = n < 0;
  gzclose(f);
  if (bad) throw std::runtime_error("cannot read " + path + " (corrupt gzip?)");
  return out;
}

}  // namespace

Json read_json_file(const std::string& path) {
  const std::string text = read_file_maybe_gz(path);
  try {
    return Json::parse(text);
  } catch (const Json::exception& e) {
    // "[json.exception.parse_error.101] parse error at line 1, column 2: ..."
    std::string what = e.what();
    const size_t close = what.find("] ");
    if (what.rfind("[json.exception.", 0) == 0 && close != std::string::npos)
      what.erase(0, close + 2);
    throw std::runtime_error("JSON " + what);
  }
}

const Json* member(const Json& j, const std::string& k) {
  if (!j.is_object()) return nullptr;
  const auto it = j.find(k);
  return it == j.end() ? nullptr : &*it;
}

}  // namespace amxqa::bench
