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

// Offsets: start/end count Unicode characters of the context (code points,
// as Python's str and the Hugging Face pipeline index it), byte_start/byte_end
// its UTF-8 bytes (the C API's). text == context[byte_start, byte_end).
struct QaSpan {
  std::string text;      // exact context bytes; "" when no_answer
  float score = 0.f;     // the span's probability (amxqa_span.score / info.probability)
  uint64_t start = 0, end = 0;             // characters; 0, 0 when no_answer
  uint64_t byte_start = 0, byte_end = 0;   // bytes
};

// One of the top_k spans (amxqa_answer_topk).
using QaCandidate = QaSpan;

struct QaAnswer : QaSpan {
  bool no_answer = false;
  // The no-answer decision (amxqa_answer_info): abstained iff margin > threshold.
  float no_answer_margin = 0.f, no_answer_threshold = 0.f;
  // Passage windows answered (1 for a passage that fits) and the one the
  // answer, or the reported abstention, came from (from 0).
  uint32_t windows = 1, window = 0;
  // With top_k > 1: the best spans, [0] the answer itself; empty otherwise
  // (candidates then holds the answer alone). Reused: clear() keeps capacity.
  std::vector<QaCandidate> candidates;
};

// Sets span->text, byte_start/byte_end from [b, e) (clamped to the context)
// and start/end as character offsets.
void set_span(const std::string& context, uint64_t b, uint64_t e, QaSpan* span);

// {"answer","score","start","end","byte_start","byte_end","no_answer",
//  "no_answer_margin","no_answer_threshold","windows","window",
//  "candidates":[{"answer","score","start","end","byte_start","byte_end"}]}.
// A margin or threshold that is not finite is written as null.
// candidates: QaAnswer::candidates when the request asked for top_k > 1, else
// the answer's one span (none on no_answer).
std::string answer_body(const QaAnswer& a);

// {"error":{"code","message"}}
std::string error_body(const QaError& e);

// {"id", then answer_body's fields}; id_json is the request's id as JSON
// text ("" writes null).
std::string batch_answer_line(const std::string& id_json, const QaAnswer& a);

// {"id", "error":{"code","message","line"}}; the message starts "line N: ".
std::string batch_error_line(const std::string& id_json, size_t line_no, const QaError& e);

}  // namespace amxqa::serve
