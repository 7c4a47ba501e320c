#include "batch_lines.h"

#include <nlohmann/json.hpp>

namespace amxqa::serve {

using nlohmann::json;

QaError parse_batch_line(std::string_view line, QaRequest* out) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  ParseOptions options;
  options.require_id = true;
  return parse_qa_request(line, options, out);
}

bool read_output_line(std::string_view line, DoneKey* out) {
  *out = DoneKey{};
  const json j = json::parse(line.begin(), line.end(), nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) return false;
  auto id = j.find("id");
  if (id != j.end() && (id->is_string() || id->is_number_integer())) {
    out->id_json = id->dump();  // the same text parse_qa_request makes of it
    return true;
  }
  // An error line for an input without an id: keyed by its line number.
  auto err = j.find("error");
  if (err == j.end() || !err->is_object()) return false;
  auto line_no = err->find("line");
  if (line_no == err->end() || !line_no->is_number_unsigned()) return false;
  out->line_no = line_no->get<size_t>();
  return out->line_no != 0;
}

}  // namespace amxqa::serve
