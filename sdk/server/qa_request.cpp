#include "qa_request.h"

#include <cmath>
#include <nlohmann/json.hpp>

namespace amxqa::serve {

using nlohmann::json;

QaError make_error(int http_status, const char* code, std::string message) {
  QaError e;
  e.http_status = http_status;
  e.code = code;
  e.message = std::move(message);
  return e;
}

namespace {

QaError field_error(const char* code, const char* field, const std::string& what) {
  return make_error(422, code, std::string("\"") + field + "\" " + what);
}

QaError wrong_type(const char* field, const char* expected, const json& v) {
  return field_error("wrong_type", field, std::string("must be ") + expected + ", not " + v.type_name());
}

// A required non-empty string field.
QaError take_string(const json& obj, const char* field, std::string* out) {
  auto it = obj.find(field);
  if (it == obj.end()) return field_error("missing_field", field, "is missing");
  if (!it->is_string()) return wrong_type(field, "a string", *it);
  *out = it->get<std::string>();
  if (out->empty()) return field_error("empty_field", field, "is empty");
  return QaError{};
}

// The batch id: a string or an integer, kept as its JSON text so the output
// line repeats exactly what the input had.
QaError take_id(const json& obj, bool required, std::string* out) {
  auto it = obj.find("id");
  if (it == obj.end() || it->is_null()) {
    return required ? field_error("missing_field", "id", "is missing") : QaError{};
  }
  if (!it->is_string() && !it->is_number_integer()) return wrong_type("id", "a string or an integer", *it);
  if (it->is_string() && it->get_ref<const std::string&>().empty()) return field_error("empty_field", "id", "is empty");
  *out = it->dump();
  return QaError{};
}

QaError take_top_k(const json& obj, uint32_t* out) {
  auto it = obj.find("top_k");
  if (it == obj.end() || it->is_null()) return QaError{};
  if (!it->is_number_integer()) return wrong_type("top_k", "an integer", *it);
  // A negative integer is not "unsigned" in nlohmann::json, so it fails here too.
  const uint64_t k = it->is_number_unsigned() ? it->get<uint64_t>() : 0;
  if (k < 1 || k > kMaxTopK)
    return field_error("invalid_field", "top_k", "must be between 1 and " + std::to_string(kMaxTopK));
  *out = static_cast<uint32_t>(k);
  return QaError{};
}

QaError take_threshold(const json& obj, bool* has, float* out) {
  auto it = obj.find("threshold");
  if (it == obj.end() || it->is_null()) return QaError{};
  if (!it->is_number()) return wrong_type("threshold", "a number", *it);
  // 1e39 fits a double but not a float: +inf is "never abstain", which the library
  // accepts; -inf would abstain on every passage, which it refuses.
  const float t = static_cast<float>(it->get<double>());
  if (std::isnan(t) || (std::isinf(t) && t < 0))
    return field_error("invalid_field", "threshold", "must not be below -3.4e38");
  *has = true;
  *out = t;
  return QaError{};
}

}  // namespace

QaError parse_qa_request(std::string_view text, const ParseOptions& options, QaRequest* out) {
  *out = QaRequest{};
  if (options.max_bytes != 0 && text.size() > options.max_bytes)
    return make_error(413, "body_too_large",
                      "request is " + std::to_string(text.size()) + " bytes; the limit is " +
                          std::to_string(options.max_bytes) + " (--max-body-bytes)");
  json doc;
  try {
    doc = json::parse(text.begin(), text.end());
  } catch (const json::exception& e) {
    // A syntax error (parse_error), or a number too big for a double (out_of_range,
    // "number overflow parsing '1e999'"). e.what() starts "[json.exception.NAME.ID] ".
    std::string what = e.what();
    const size_t cut = what.find("] ");
    if (cut != std::string::npos) what.erase(0, cut + 2);
    // A one-line document (every batch line) needs no "line 1" beside the batch's own line number.
    if (text.find('\n') == std::string_view::npos) {
      const size_t at = what.find("at line 1, column");
      if (at != std::string::npos) what.replace(at, 17, "at column");
    }
    return make_error(400, "malformed_json", what);
  }
  if (!doc.is_object())
    return make_error(400, "malformed_json", std::string("expected a JSON object, got ") + doc.type_name());
  QaError e;
  if (!(e = take_id(doc, options.require_id, &out->id_json)).ok()) return e;
  if (!(e = take_string(doc, "question", &out->question)).ok()) return e;
  if (!(e = take_string(doc, "context", &out->context)).ok()) return e;
  if (!(e = take_top_k(doc, &out->top_k)).ok()) return e;
  return take_threshold(doc, &out->has_threshold, &out->threshold);
}

}  // namespace amxqa::serve
