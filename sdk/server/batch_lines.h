// batch_lines.h — the two line formats of `amxqa batch`, pure functions (no
// model) so fuzz_jsonl_line can drive them: an input line is a request
// ({"id","question","context",...}, parsed by the one request parser), and an
// output line already written by an earlier run tells --resume what to skip.
#pragma once
#include <cstddef>
#include <string>
#include <string_view>

#include "qa_request.h"

namespace amxqa::serve {

// One input line (a trailing '\r' is ignored): parse_qa_request with "id"
// required and no byte limit.
QaError parse_batch_line(std::string_view line, QaRequest* out);

// What one output line covers: the input with this id, or, for an error
// line written without an id (the input had none), input line `line_no`.
struct DoneKey {
  std::string id_json;  // "" when the line had no id
  size_t line_no = 0;   // set only when id_json is ""
};

// False when the line is not an output line of ours (then it covers nothing).
bool read_output_line(std::string_view line, DoneKey* out);

}  // namespace amxqa::serve
