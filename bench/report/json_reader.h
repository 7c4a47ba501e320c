// json_reader.h — a small, strict JSON reader: enough for `amxqa-bench
// compare` (our own result files) and for the SQuAD dev file, without a JSON
// library or the trainer. Malformed input throws std::runtime_error with the
// byte offset; nesting is bounded, so hostile input cannot overflow the stack.
#pragma once
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace amxqa::bench {

struct Json {
  enum class Kind { null, boolean, number, string, array, object };
  Kind kind = Kind::null;
  bool b = false;
  double num = 0.0;
  std::string str;
  std::vector<Json> items;                           // array
  std::vector<std::pair<std::string, Json>> fields;  // object, file order

  const Json* get(const std::string& k) const;  // nullptr if absent / not an object
  bool is_number() const { return kind == Kind::number; }
  bool is_string() const { return kind == Kind::string; }
};

Json parse_json(const std::string& text);

// Whole content of a file, gunzipped when it is gzip (zlib reads both).
// Throws std::runtime_error if it cannot be read.
std::string read_file_maybe_gz(const std::string& path);

}  // namespace amxqa::bench
