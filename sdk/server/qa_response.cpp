#include "qa_response.h"

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

void put_span(json& j, const QaAnswer& a) {
  j["answer"] = a.text;
  j["score"] = a.score;
  j["start"] = a.start;
  j["end"] = a.end;
}

}  // namespace

std::string answer_body(const QaAnswer& a) {
  json j = json::object();
  put_span(j, a);
  j["no_answer"] = a.no_answer;
  json candidates = json::array();
  for (const QaCandidate& k : a.candidates)
    candidates.push_back({{"answer", k.text}, {"score", k.score}, {"start", k.start}, {"end", k.end}});
  if (a.candidates.empty() && !a.no_answer) {
    json c = json::object();
    put_span(c, a);
    candidates.push_back(std::move(c));
  }
  j["candidates"] = std::move(candidates);
  return dump(j);
}

std::string error_body(const QaError& e) {
  return dump(json{{"error", {{"code", e.code}, {"message", e.message}}}});
}

std::string batch_answer_line(const std::string& id_json, const QaAnswer& a) {
  json j = json::object();
  j["id"] = id_value(id_json);
  put_span(j, a);
  j["no_answer"] = a.no_answer;
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
