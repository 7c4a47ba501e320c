// json_members.h — typed member lookups on untrusted nlohmann::json values
// (a member of the wrong type is as absent as a missing one, so readers of
// SQuAD files and logs skip it instead of throwing), and a dump that never
// throws: passages and answers are untrusted bytes, and invalid UTF-8 in them
// becomes U+FFFD instead of nlohmann's type_error.
#pragma once
#include <nlohmann/json.hpp>
#include <string>

namespace amxqa::eval {

// The member `key` of `v` when `v` is an object and the member a string, else nullptr.
inline const std::string* string_member(const nlohmann::json& v, const char* key) {
  if (!v.is_object()) return nullptr;
  const auto it = v.find(key);
  return it != v.end() && it->is_string() ? it->get_ptr<const std::string*>() : nullptr;
}

// The member `key` of `v` when `v` is an object and the member an array, else nullptr.
inline const nlohmann::json* array_member(const nlohmann::json& v, const char* key) {
  if (!v.is_object()) return nullptr;
  const auto it = v.find(key);
  return it != v.end() && it->is_array() ? &*it : nullptr;
}

// The member `key` of `v` when it is a number, else nullptr.
inline const nlohmann::json* number_member(const nlohmann::json& v, const char* key) {
  if (!v.is_object()) return nullptr;
  const auto it = v.find(key);
  return it != v.end() && it->is_number() ? &*it : nullptr;
}

// JSON text, one line by default (indent -1), else one member per line
// indented by `indent` spaces; NaN and infinities are written as null.
template <class Json>
std::string dump_json(const Json& v, int indent = -1) {
  return v.dump(indent, ' ', false, Json::error_handler_t::replace);
}

}  // namespace amxqa::eval
