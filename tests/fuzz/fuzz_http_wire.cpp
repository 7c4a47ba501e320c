// fuzz_http_wire.cpp — `amxqa serve`'s HTTP/1.x request reader
// (sdk/server/http_parser.h) with arbitrary bytes as what a client sent on
// one connection (pipelined requests included). Byte 0 sets the limits,
// byte 1 how the bytes arrive. It must never crash, and reading the bytes
// as they trickle in must give the same requests and the same error as
// reading them at once (the server resumes the parser at every read). Each
// request read is routed (sdk/server/http_routes.h) with an API key, CORS
// and a page on, and its reply must serialise to a well-formed head.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_support.h"
#include "http_parser.h"
#include "http_reply.h"
#include "http_routes.h"

extern "C" int LLVMFuzzerInitialize(int*, char***) { return 0; }

namespace {

using amxqa::serve::HttpLimits;
using amxqa::serve::HttpRequestParser;

// What one parse of a connection's bytes gave, compared between the two ways of reading.
struct Outcome {
  HttpRequestParser::Result result = HttpRequestParser::Result::kIncomplete;
  int status = 0;
  std::string summary;  // the request's fields, or the error's code
};

std::string summarize(const amxqa::serve::HttpRequest& r, size_t consumed) {
  std::string s = r.method + ' ' + r.target + ' ' + r.path + ' ' + std::to_string(r.minor_version) +
                  (r.keep_alive ? " ka" : " close") + (r.expect_continue ? " 100" : "") + ' ' +
                  std::to_string(consumed) + '\n';
  for (const auto& [k, v] : r.headers) s += k + ": " + v + '\n';
  return s + '\n' + r.body;
}

void check_request(const amxqa::serve::HttpRequest& r, const HttpLimits& limits) {
  AMXQA_FUZZ_CHECK(r.body.size() <= limits.max_body_bytes);
  AMXQA_FUZZ_CHECK(r.headers.size() <= limits.max_headers);
  AMXQA_FUZZ_CHECK(!r.method.empty());
  AMXQA_FUZZ_CHECK(r.target.compare(0, r.path.size(), r.path) == 0);
  AMXQA_FUZZ_CHECK(r.target == "*" || (!r.path.empty() && r.path[0] == '/'));
  AMXQA_FUZZ_CHECK(r.minor_version == 0 || r.minor_version == 1);
  for (const auto& [k, v] : r.headers) {
    AMXQA_FUZZ_CHECK(!k.empty());
    for (char c : k) AMXQA_FUZZ_CHECK(!(c >= 'A' && c <= 'Z'));
    AMXQA_FUZZ_CHECK(v.find_first_of("\r\n") == std::string::npos);
  }
  // Routed with the access checks on: the reply's head is well formed.
  static const amxqa::serve::RouteTable table = [] {
    amxqa::serve::RouteTable t;
    t.api_key = "fuzz-key";
    std::string why;
    t.cors.set_origins({"https://app.example"}, &why);
    t.health_body = "{}";
    t.model_body = "{}";
    t.page = {{"/", "text/html; charset=utf-8", "<p>page</p>"}, {"/ui/app.js", "text/javascript; charset=utf-8", "//"}};
    return t;
  }();
  amxqa::serve::HttpReply reply;
  amxqa::serve::route_request(r, table, &reply);
  const std::string wire = amxqa::serve::serialize(reply, r.minor_version, r.keep_alive, r.method == "HEAD");
  const size_t head_end = wire.find("\r\n\r\n");
  AMXQA_FUZZ_CHECK(head_end != std::string::npos);
  const std::string_view head(wire.data(), head_end);
  for (size_t i = 0; i < head.size(); ++i) {
    if (head[i] == '\n') AMXQA_FUZZ_CHECK(i > 0 && head[i - 1] == '\r');  // no header split by a value
    AMXQA_FUZZ_CHECK(head[i] != '\0');
  }
}

// Reads `data` as one connection; `steps` gives how many more bytes each read adds (empty: all at once).
std::vector<Outcome> read_connection(std::string_view data, const HttpLimits& limits, const std::vector<size_t>& steps) {
  std::vector<Outcome> out;
  HttpRequestParser parser(limits);
  size_t start = 0, visible = steps.empty() ? data.size() : 0, step = 0;
  while (true) {
    if (!steps.empty()) visible = std::min(data.size(), visible + steps[step++ % steps.size()]);
    const HttpRequestParser::Result r = parser.parse(data.substr(start, visible - start));
    if (r == HttpRequestParser::Result::kIncomplete && visible < data.size()) continue;
    Outcome o;
    o.result = r;
    if (r == HttpRequestParser::Result::kComplete) {
      AMXQA_FUZZ_CHECK(parser.consumed() > 0 && parser.consumed() <= visible - start);
      check_request(parser.request(), limits);
      o.summary = summarize(parser.request(), parser.consumed());
      start += parser.consumed();
      parser.reset();
      out.push_back(o);
      if (start == data.size()) break;
      continue;
    }
    if (r == HttpRequestParser::Result::kError) {
      const int s = parser.error().status;
      AMXQA_FUZZ_CHECK(s == 400 || s == 413 || s == 414 || s == 417 || s == 431 || s == 501 || s == 505);
      AMXQA_FUZZ_CHECK(!parser.error().message.empty());
      o.status = s;
      // The server's error reply takes its version, route and HEAD-ness
      // from what was read before the error: that must agree too.
      const amxqa::serve::HttpRequest& partial = parser.request();
      o.summary = std::string(parser.error().code) + ' ' + partial.method + ' ' + partial.path + ' ' +
                  std::to_string(partial.minor_version);
    }
    out.push_back(o);
    break;
  }
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  HttpLimits limits;
  limits.max_head_bytes = 32 + (data[0] & 0x0f) * 48;
  limits.max_headers = 1 + (data[0] & 0x07) * 3;
  limits.max_body_bytes = (data[0] >> 4) * 24;
  std::vector<size_t> steps;
  for (unsigned seed = data[1] | 1u, i = 0; i < 8; ++i) {
    seed = seed * 1103515245u + 12345u;
    steps.push_back(1 + (seed >> 16) % 13);
  }
  amxqa::fuzz::AlignedCopy copy(data + 2, size - 2);  // exact bounds: a read past the end is an ASan error
  const std::string_view wire(reinterpret_cast<const char*>(copy.data()), copy.size());
  const std::vector<Outcome> whole = read_connection(wire, limits, {});
  const std::vector<Outcome> trickled = read_connection(wire, limits, steps);
  AMXQA_FUZZ_CHECK(whole.size() == trickled.size());
  for (size_t i = 0; i < whole.size(); ++i) {
    AMXQA_FUZZ_CHECK(whole[i].result == trickled[i].result);
    AMXQA_FUZZ_CHECK(whole[i].status == trickled[i].status);
    AMXQA_FUZZ_CHECK(whole[i].summary == trickled[i].summary);
  }
  return 0;
}
