// json_file.cpp — see json_file.h.
#include "report/json_file.h"

#include <stdexcept>

#include "gz_text.h"

namespace amxqa::bench {

Json read_json_file(const std::string& path) {
  const std::string text = eval::read_gz(path);  // throws when unreadable
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
