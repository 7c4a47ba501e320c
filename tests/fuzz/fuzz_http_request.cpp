// fuzz_http_request.cpp — `amxqa serve`'s request parser
// (sdk/server/qa_request.h) with arbitrary bytes as the POST /v1/answer
// body. It must return a request or one of the documented errors (400, 413,
// 422 with a code and a message), never throw or crash; an accepted request
// has the fields the answer path relies on, session options that fit the
// server's sessions or a 422 naming the field, and character offsets within
// its context; every error and answer body is valid JSON.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string_view>

#include "fuzz_support.h"
#include "qa_request.h"
#include "qa_response.h"

extern "C" int LLVMFuzzerInitialize(int*, char***) { return 0; }

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace amxqa::serve;
  const std::string_view body(reinterpret_cast<const char*>(data), size);
  // The limit from the first byte, so the fuzzer reaches both sides of it.
  const size_t limit = size == 0 ? 0 : 16 + data[0] * 8;
  QaRequest req;
  const QaError e = parse_qa_request(body, ParseOptions{limit, false}, &req);
  if (e.ok()) {
    AMXQA_FUZZ_CHECK(!req.question.empty() && !req.context.empty());
    AMXQA_FUZZ_CHECK(req.top_k >= 1 && req.top_k <= kMaxTopK);
    AMXQA_FUZZ_CHECK(limit == 0 || size <= limit);
    AMXQA_FUZZ_CHECK(!req.max_answer_tokens || (*req.max_answer_tokens >= 1 && *req.max_answer_tokens <= 65536));
    AMXQA_FUZZ_CHECK(!req.window_overlap || *req.window_overlap <= 65535);
    // The session options it asks for fit the server's sessions, or name the field.
    amxqa_session_options base;
    amxqa_session_options_default(&base);
    base.max_passage_tokens = 64;
    amxqa_session_options o;
    const QaError oe = request_options(req, base, &o);
    if (oe.ok()) {
      AMXQA_FUZZ_CHECK(o.max_answer_tokens >= 1 && o.max_answer_tokens <= base.max_answer_tokens);
      AMXQA_FUZZ_CHECK(!o.windows || o.window_overlap < o.max_passage_tokens);
    } else {
      AMXQA_FUZZ_CHECK(oe.http_status == 422 && oe.code == "invalid_field");
    }
    // Character offsets of any byte span of the (valid UTF-8) context.
    QaAnswer a;
    const uint64_t b = size > 1 ? data[1] : 0, e = size > 2 ? b + data[2] : b;
    set_span(req.context, b, e, &a);
    AMXQA_FUZZ_CHECK(a.byte_start <= a.byte_end && a.byte_end <= req.context.size());
    AMXQA_FUZZ_CHECK(a.text == req.context.substr(a.byte_start, a.byte_end - a.byte_start));
    AMXQA_FUZZ_CHECK(a.start <= a.byte_start && a.start <= a.end && a.end - a.start <= a.byte_end - a.byte_start);
    AMXQA_FUZZ_CHECK(nlohmann::json::parse(answer_body(a), nullptr, false).is_object());
  } else {
    AMXQA_FUZZ_CHECK(e.http_status == 400 || e.http_status == 413 || e.http_status == 422);
    AMXQA_FUZZ_CHECK(!e.code.empty() && !e.message.empty());
    AMXQA_FUZZ_CHECK((e.http_status == 413) == (limit != 0 && size > limit));
    const auto parsed = nlohmann::json::parse(error_body(e), nullptr, false);
    AMXQA_FUZZ_CHECK(parsed.is_object() && parsed["error"]["code"] == e.code);
  }
  return 0;
}
