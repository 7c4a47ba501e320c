// fuzz_jsonl_line.cpp — `amxqa batch`'s line formats (sdk/server/batch_lines.h)
// with arbitrary bytes: an input line parses to a request or an error, never a
// throw or a crash; the output line written for it (an answer line or an error
// line with its line number) is one line of valid JSON carrying the same id,
// and reads back as the key --resume skips. The bytes are also read as an
// earlier run's output line (--resume reads files it did not write).
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "batch_lines.h"
#include "fuzz_support.h"
#include "qa_response.h"

extern "C" int LLVMFuzzerInitialize(int*, char***) { return 0; }

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace amxqa::serve;
  const std::string_view line(reinterpret_cast<const char*>(data), size);
  DoneKey key;
  if (read_output_line(line, &key)) AMXQA_FUZZ_CHECK(!key.id_json.empty() || key.line_no != 0);

  QaRequest req;
  const QaError e = parse_batch_line(line, &req);
  const size_t line_no = 1 + size;
  std::string out;
  if (e.ok()) {
    AMXQA_FUZZ_CHECK(!req.id_json.empty() && !req.question.empty() && !req.context.empty());
    QaAnswer a;
    a.text = req.question;  // any bytes: invalid UTF-8 must still give valid JSON
    out = batch_answer_line(req.id_json, a);
  } else {
    AMXQA_FUZZ_CHECK(e.http_status == 400 || e.http_status == 422);
    out = batch_error_line(req.id_json, line_no, e);
  }
  AMXQA_FUZZ_CHECK(out.find('\n') == std::string::npos);
  const auto parsed = nlohmann::json::parse(out, nullptr, false);
  AMXQA_FUZZ_CHECK(parsed.is_object());
  AMXQA_FUZZ_CHECK(read_output_line(out, &key));
  if (!req.id_json.empty()) {
    AMXQA_FUZZ_CHECK(key.id_json == req.id_json);
  } else {
    AMXQA_FUZZ_CHECK(!e.ok() && key.line_no == line_no);
  }
  return 0;
}
