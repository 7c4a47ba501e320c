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

// An optional unsigned integer field in [lo, hi].
QaError take_count(const json& obj, const char* field, uint64_t lo, uint64_t hi, std::optional<uint32_t>* out) {
  auto it = obj.find(field);
  if (it == obj.end() || it->is_null()) return QaError{};
  if (!it->is_number_integer()) return wrong_type(field, "an integer", *it);
  // A negative integer is not "unsigned" in nlohmann::json, so it fails the range too.
  const uint64_t v = it->is_number_unsigned() ? it->get<uint64_t>() : 0;
  if (!it->is_number_unsigned() || v < lo || v > hi)
    return field_error("invalid_field", field,
                       "must be between " + std::to_string(lo) + " and " + std::to_string(hi));
  *out = static_cast<uint32_t>(v);
  return QaError{};
}

QaError take_bool(const json& obj, const char* field, std::optional<bool>* out) {
  auto it = obj.find(field);
  if (it == obj.end() || it->is_null()) return QaError{};
  if (!it->is_boolean()) return wrong_type(field, "true or false", *it);
  *out = it->get<bool>();
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

std::string field_list() {
  std::string all;
  for (const char* const* f = kRequestFields; *f; ++f) all += std::string(all.empty() ? "" : ", ") + *f;
  return all;
}

QaError unknown_fields(const json& obj) {
  for (auto it = obj.begin(); it != obj.end(); ++it) {
    bool known = false;
    for (const char* const* f = kRequestFields; *f && !known; ++f) known = it.key() == *f;
    if (!known)
      return make_error(422, "unknown_field",
                        "\"" + it.key() + "\" is not a request field (the fields: " + field_list() + ")");
  }
  return QaError{};
}

// amxqa_session_options' limits (runtime/session/session_layout.cpp).
constexpr uint64_t kMaxAnswerTokens = 1u << 16;
constexpr uint64_t kMaxWindowOverlap = 65535;

}  // namespace

const char* const kRequestFields[] = {"id", "question", "context", "top_k", "threshold", "max_answer_tokens",
                                      "windows", "window_overlap", "whole_words", nullptr};

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
  if (!(e = unknown_fields(doc)).ok()) return e;
  if (!(e = take_string(doc, "question", &out->question)).ok()) return e;
  if (!(e = take_string(doc, "context", &out->context)).ok()) return e;
  std::optional<uint32_t> top_k;
  if (!(e = take_count(doc, "top_k", 1, kMaxTopK, &top_k)).ok()) return e;
  out->top_k = top_k.value_or(1);
  if (!(e = take_threshold(doc, &out->has_threshold, &out->threshold)).ok()) return e;
  if (!(e = take_count(doc, "max_answer_tokens", 1, kMaxAnswerTokens, &out->max_answer_tokens)).ok()) return e;
  if (!(e = take_bool(doc, "windows", &out->windows)).ok()) return e;
  if (!(e = take_count(doc, "window_overlap", 0, kMaxWindowOverlap, &out->window_overlap)).ok()) return e;
  return take_bool(doc, "whole_words", &out->whole_words);
}

QaError request_options(const QaRequest& req, const amxqa_session_options& base, amxqa_session_options* out) {
  *out = base;
  if (req.max_answer_tokens) {
    if (*req.max_answer_tokens > base.max_answer_tokens)
      return field_error("invalid_field", "max_answer_tokens",
                         "is " + std::to_string(*req.max_answer_tokens) + "; the sessions were made for at most " +
                             std::to_string(base.max_answer_tokens) + " (--max-answer-tokens)");
    out->max_answer_tokens = *req.max_answer_tokens;
  }
  if (req.windows) out->windows = *req.windows ? 1 : 0;
  if (req.window_overlap) out->window_overlap = static_cast<uint16_t>(*req.window_overlap);
  if (req.whole_words) out->whole_words = *req.whole_words ? 1 : 0;
  if (out->windows && out->window_overlap >= out->max_passage_tokens)
    return field_error("invalid_field", "window_overlap",
                       "is " + std::to_string(out->window_overlap) + "; it must be below the " +
                           std::to_string(out->max_passage_tokens) + " tokens of a window (--max-passage-tokens)");
  return QaError{};
}

}  // namespace amxqa::serve
