// json_writer.h — a small streaming JSON writer (the project installs no JSON
// library). Tracks nesting and commas so callers only say what to write;
// non-finite numbers become null, strings are escaped per RFC 8259.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace amxqa::bench {

class JsonWriter {
 public:
  explicit JsonWriter(int indent = 2) : indent_(indent) {}

  JsonWriter& begin_object();
  JsonWriter& end_object();
  JsonWriter& begin_array();
  JsonWriter& end_array();
  JsonWriter& key(const std::string& k);  // inside an object, before each value

  JsonWriter& value(const std::string& s);
  JsonWriter& value(const char* s);
  JsonWriter& value(double d);  // NaN / inf → null
  JsonWriter& value(int64_t i);
  JsonWriter& value(uint64_t u);
  JsonWriter& value(int i) { return value(static_cast<int64_t>(i)); }
  JsonWriter& value(bool b);
  JsonWriter& null();

  const std::string& str() const { return out_; }

  static std::string escape(const std::string& s);  // with the quotes

 private:
  void before_value();
  void newline();
  std::string out_;
  std::vector<bool> first_;  // per open container: no element written yet
  bool after_key_ = false;
  int indent_;
};

}  // namespace amxqa::bench
