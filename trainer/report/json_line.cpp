#include "report/json_line.h"

#include <cmath>
#include <cstdio>

namespace amxqa::train {

std::string json_escape(const std::string& s) {
  std::string o = "\"";
  for (unsigned char c : s) {
    switch (c) {
      case '"': o += "\\\""; break;
      case '\\': o += "\\\\"; break;
      case '\n': o += "\\n"; break;
      case '\r': o += "\\r"; break;
      case '\t': o += "\\t"; break;
      default:
        if (c < 0x20 || c == 0x7f) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          o += buf;
        } else {
          o += static_cast<char>(c);  // UTF-8 passes through; invalid bytes stay bytes
        }
    }
  }
  return o + "\"";
}

std::string json_number(double v) {
  if (!std::isfinite(v)) return "null";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

void JsonLine::key(const std::string& k) {
  if (!body_.empty()) body_ += ',';
  body_ += json_escape(k);
  body_ += ':';
}

JsonLine& JsonLine::add(const std::string& k, double v) {
  key(k);
  body_ += json_number(v);
  return *this;
}
JsonLine& JsonLine::add(const std::string& k, int64_t v) {
  key(k);
  body_ += std::to_string(v);
  return *this;
}
JsonLine& JsonLine::add(const std::string& k, uint64_t v) {
  key(k);
  body_ += std::to_string(v);
  return *this;
}
JsonLine& JsonLine::add(const std::string& k, const std::string& v) {
  key(k);
  body_ += json_escape(v);
  return *this;
}
JsonLine& JsonLine::add(const std::string& k, bool v) {
  key(k);
  body_ += v ? "true" : "false";
  return *this;
}
JsonLine& JsonLine::add(const std::string& k, const std::vector<double>& v) {
  key(k);
  body_ += '[';
  for (size_t i = 0; i < v.size(); ++i) body_ += (i ? "," : "") + json_number(v[i]);
  body_ += ']';
  return *this;
}
JsonLine& JsonLine::add(const std::string& k, const std::vector<std::string>& v) {
  key(k);
  body_ += '[';
  for (size_t i = 0; i < v.size(); ++i) body_ += (i ? "," : "") + json_escape(v[i]);
  body_ += ']';
  return *this;
}
JsonLine& JsonLine::add_raw(const std::string& k, const std::string& json) {
  key(k);
  body_ += json;
  return *this;
}

}  // namespace amxqa::train
