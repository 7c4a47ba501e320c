// json_file.h — the harness's JSON, on nlohmann-json: reading `amxqa-bench
// compare`'s result files (report_files.cpp writes them with the same Json
// type). The SQuAD dev questions come from sdk/eval's reader.
#pragma once
#include <nlohmann/json.hpp>
#include <string>

namespace amxqa::bench {

// Objects keep their members in insertion / file order: the result files
// list keys in a documented order and compare prints them in A's order.
using Json = nlohmann::ordered_json;

// Parses the whole file at path, gunzipped when it is gzip (zlib reads both).
// Throws std::runtime_error when it cannot be read or is not valid JSON; the
// message names the line and column. The parser does not recurse, so deep
// nesting in hostile input cannot overflow the stack.
Json read_json_file(const std::string& path);

// The member k of j, or nullptr when j is not an object or has no such member.
const Json* member(const Json& j, const std::string& k);

}  // namespace amxqa::bench
