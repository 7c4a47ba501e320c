#include "qa_response.h"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

namespace amxqa::serve {

// ordered_json keeps the fields in the documented order.
using json = nlohmann::ordered_json;

namespace {

std::string dump(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

// The id was re-serialised by parse_qa_request, so it parses; "" is null.
json id_value(const std::string& id_json) {
  return id_json.empty() ? json(nullptr) : json::parse(id_json, nullptr, false);
}

json span_json(const QaSpan& a) {
  json j = json::object();
  j["answer"] = a.text;
  j["score"] = a.score;
  j["start"] = a.start;
  j["end"] = a.end;
  j["byte_start"] = a.byte_start;
  j["byte_end"] = a.byte_end;
  return j;
}

// Code points in s[0, n): every byte that does not continue a UTF-8 sequence
// starts one (a request's context is valid UTF-8: the JSON parser checked it).
uint64_t chars_before(const std::string& s, uint64_t n) {
  uint64_t chars = 0;
  for (uint64_t i = 0; i < n; ++i) chars += (static_cast<unsigned char>(s[i]) & 0xC0) != 0x80;
  return chars;
}

// JSON has no infinities (a threshold of 1e39 is +inf as a float).
json finite_or_null(float v) { return std::isfinite(v) ? json(v) : json(nullptr); }

json answer_json(const QaAnswer& a) {
  json j = span_json(a);
  j["no_answer"] = a.no_answer;
  j["no_answer_margin"] = finite_or_null(a.no_answer_margin);
  j["no_answer_threshold"] = finite_or_null(a.no_answer_threshold);
  j["windows"] = a.windows;
  j["window"] = a.window;
  json candidates = json::array();
  for (const QaCandidate& k : a.candidates) candidates.push_back(span_json(k));
  if (a.candidates.empty() && !a.no_answer) candidates.push_back(span_json(a));
  j["candidates"] = std::move(candidates);
  return j;
}

}  // namespace

void set_span(const std::string& context, uint64_t b, uint64_t e, QaSpan* span) {
  b = std::min<uint64_t>(b, context.size());
  e = std::min<uint64_t>(std::max(e, b), context.size());
  span->text.assign(context, b, e - b);
  span->byte_start = b;
  span->byte_end = e;
  span->start = chars_before(context, b);
  span->end = span->start + chars_before(span->text, span->text.size());
}

std::string answer_body(const QaAnswer& a) { return dump(answer_json(a)); }

std::string error_body(const QaError& e) {
  return dump(json{{"error", {{"code", e.code}, {"message", e.message}}}});
}

std::string batch_answer_line(const std::string& id_json, const QaAnswer& a) {
  json j = json::object();
  j["id"] = id_value(id_json);
  j.update(answer_json(a));
  return dump(j);
}

std::string batch_error_line(const std::string& id_json, size_t line_no, const QaError& e) {
  json err = {{"code", e.code}, {"message", "line " + std::to_string(line_no) + ": " + e.message}, {"line", line_no}};
  json j = json::object();
  j["id"] = id_value(id_json);
  j["error"] = std::move(err);
  return dump(j);
}

}  // namespace amxqa::serve
