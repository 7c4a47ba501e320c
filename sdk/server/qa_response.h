// qa_response.h — the JSON `amxqa serve` and `amxqa batch` write: answers,
// error bodies, and one JSONL line per batch input line. Every string is
// written with invalid UTF-8 replaced (U+FFFD), so output is always valid JSON
// even if a span were to end inside a multi-byte character.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "qa_request.h"

namespace amxqa::serve {

// One of the top_k spans (amxqa_answer_topk).
struct QaCandidate {
  std::string text;      // context[start, end)
  float score = 0.f;     // the span's probability, as QaAnswer::score
  uint64_t start = 0, end = 0;
};

struct QaAnswer {
  std::string text;      // exact passage bytes; "" when no_answer
  float score = 0.f;     // amxqa_answer_info.probability (0..1), what an app thresholds
  uint64_t start = 0;    // text == context[start, end) (byte offsets); 0, 0 when no_answer
  uint64_t end = 0;
  bool no_answer = false;
  // With top_k > 1: the best spans, [0] the answer itself; empty otherwise
  // (candidates then holds the answer alone). Reused: clear() keeps capacity.
  std::vector<QaCandidate> candidates;
};

// {"answer","score","start","end","no_answer","candidates":[{"answer","score","start","end"}]}.
// candidates: QaAnswer::candidates when the request asked for top_k > 1, else
// the answer's one span (none on no_answer).
std::string answer_body(const QaAnswer& a);

// {"error":{"code","message"}}
std::string error_body(const QaError& e);

// {"id","answer","score","start","end","no_answer"}; id_json is the request's
// id as JSON text ("" writes null).
std::string batch_answer_line(const std::string& id_json, const QaAnswer& a);

// {"id", "error":{"code","message","line"}}; the message starts "line N: ".
std::string batch_error_line(const std::string& id_json, size_t line_no, const QaError& e);

}  // namespace amxqa::serve
