// fuzz_http_request.cpp — `amxqa serve`'s request parser
// (sdk/server/qa_request.h) with arbitrary bytes as the POST /v1/answer
// body. It must return a request or one of the documented errors (400, 413,
// 422 with a code and a message), never throw or crash; an accepted request
// has the fields the answer path relies on; every error body is valid JSON.
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
  } else {
    AMXQA_FUZZ_CHECK(e.http_status == 400 || e.http_status == 413 || e.http_status == 422);
    AMXQA_FUZZ_CHECK(!e.code.empty() && !e.message.empty());
    AMXQA_FUZZ_CHECK((e.http_status == 413) == (limit != 0 && size > limit));
    const auto parsed = nlohmann::json::parse(error_body(e), nullptr, false);
    AMXQA_FUZZ_CHECK(parsed.is_object() && parsed["error"]["code"] == e.code);
  }
  return 0;
}
