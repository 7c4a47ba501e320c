// qa_request.h — the one parser of a question-answering request, shared by
// `amxqa serve` (an HTTP body) and `amxqa batch` (one JSONL line). Pure: text
// in, a parsed request or an error out; no sockets, no model, so it is unit
// tested and fuzzed on its own (tests/fuzz/fuzz_http_request.cpp,
// fuzz_jsonl_line.cpp).
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "amxqa.h"

namespace amxqa::serve {

// An error as both front ends report it: the HTTP status (the batch command
// reports the same code string), a stable machine-readable code and a
// one-line message for people.
struct QaError {
  int http_status = 0;  // 0: no error
  std::string code;     // "malformed_json", "invalid_field", "body_too_large", ...
  std::string message;
  bool ok() const { return http_status == 0; }
};

QaError make_error(int http_status, const char* code, std::string message);

// top_k is accepted up to this (amxqa_answer_topk; sessions are made with
// max_top_k = kMaxTopK). Fewer come back when fewer distinct spans exist.
constexpr uint32_t kMaxTopK = 100;

// Every field a request may have, in the order the README's request table
// lists them; any other field is 422 unknown_field naming it.
extern const char* const kRequestFields[];

// One request: the fields every surface shares (README "Request fields").
// The session options a request leaves out (std::nullopt) are the server's
// or the batch run's, i.e. its command-line flags'.
struct QaRequest {
  std::string id_json;      // the "id" value re-serialised (batch); "" when absent
  std::string question;     // non-empty
  std::string context;      // non-empty
  uint32_t top_k = 1;       // 1..kMaxTopK
  bool has_threshold = false;
  float threshold = 0.f;    // no-answer threshold for this request (when has_threshold)
  std::optional<uint32_t> max_answer_tokens;  // 1..65536; at most the session's
  std::optional<bool> windows;                // answer a long context in windows
  std::optional<uint32_t> window_overlap;     // 0..65535; below max_passage_tokens
  std::optional<bool> whole_words;            // false: a span may cut a word
};

struct ParseOptions {
  size_t max_bytes = 0;     // 0: no limit; over it gives 413 body_too_large
  bool require_id = false;  // batch lines: "id" (string or integer) is required
};

// Parses one JSON object with the fields of kRequestFields. Errors:
//   413 body_too_large  text longer than max_bytes (checked before parsing)
//   400 malformed_json  not JSON, or JSON that is not an object
//   422 unknown_field   a field not in kRequestFields (a typo must not be ignored)
//   422 missing_field / empty_field / wrong_type / invalid_field
// On error *out holds what was parsed before the failure (id_json in
// particular, so a bad batch line can still be reported under its id).
QaError parse_qa_request(std::string_view text, const ParseOptions& options, QaRequest* out);

// The session options a request answers with: `base` (the server's) with the
// request's max_answer_tokens, windows, window_overlap and whole_words. A
// value the session cannot take is 422 invalid_field naming the field and
// the server flag that raises the cap.
QaError request_options(const QaRequest& req, const amxqa_session_options& base, amxqa_session_options* out);

}  // namespace amxqa::serve
