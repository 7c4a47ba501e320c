// json.h — a small, strict JSON reader for the SQuAD files (no external JSON
// dependency is installed). Builds a DOM; strings are decoded to UTF-8
// (\uXXXX escapes incl. surrogate pairs; a lone surrogate becomes U+FFFD).
// Untrusted input never crashes: errors throw JsonError with a byte offset,
// nesting is limited to kMaxDepth.
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace amxqa::train {

struct JsonError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct JsonValue {
  enum class Type : uint8_t { null, boolean, number, string, array, object };
  Type type = Type::null;
  bool b = false;
  double num = 0;
  std::string str;
  std::vector<JsonValue> arr;
  std::vector<std::pair<std::string, JsonValue>> obj;  // file order kept

  // Member by key, or nullptr (also when this is not an object).
  const JsonValue* get(const std::string& key) const;
  bool is_string() const { return type == Type::string; }
  bool is_array() const { return type == Type::array; }
  bool is_object() const { return type == Type::object; }
  bool is_number() const { return type == Type::number; }
};

constexpr int kJsonMaxDepth = 128;

// Parses one JSON document (surrounding white space allowed, nothing else).
JsonValue parse_json(const char* text, size_t len);
inline JsonValue parse_json(const std::string& s) { return parse_json(s.data(), s.size()); }

}  // namespace amxqa::train
