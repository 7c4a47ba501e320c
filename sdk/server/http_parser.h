// http_parser.h — the one reader of HTTP/1.x requests off the wire for
// `amxqa serve`: the request line, the headers and the body (Content-Length
// or chunked), with limits on each. Pure and incremental: the connection
// hands it every unconsumed byte it holds, the same prefix plus more on each
// call, and it resumes where it stopped, so a request sent one byte at a time
// costs no more to parse than one sent whole. No sockets, so it is unit
// tested and fuzzed on its own (tests/fuzz/fuzz_http_wire.cpp).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace amxqa::serve {

struct HttpLimits {
  size_t max_head_bytes = 16 * 1024;  // request line + headers: over it 431 (414 for the line alone)
  size_t max_headers = 100;           // header lines: over it 431
  size_t max_body_bytes = 1 << 20;    // decoded body: over it 413 (--max-body-bytes)
};

struct HttpRequest {
  std::string method;          // as sent ("GET", "POST", ...; case matters)
  std::string target;          // as sent: "/v1/answer?x=1", or "*"
  std::string path;            // target up to '?' or '#'
  int minor_version = 1;       // HTTP/1.<minor>: 0 or 1
  bool keep_alive = true;      // HTTP/1.1 unless "Connection: close"; HTTP/1.0 only with keep-alive
  bool expect_continue = false;  // "Expect: 100-continue" with a body to come
  std::vector<std::pair<std::string, std::string>> headers;  // names lower-cased, values trimmed
  std::string body;            // decoded (chunked framing removed)

  // The first header of that (lower-case) name, or nullptr.
  const std::string* header(std::string_view lower_name) const;
};

// What the connection answers a request it cannot read with (then it closes).
struct HttpParseError {
  int status = 0;             // 400, 413, 414, 417, 431, 501, 505
  const char* code = "";      // "bad_request", "body_too_large", ...
  std::string message;
};

class HttpRequestParser {
 public:
  enum class Result { kIncomplete, kComplete, kError };

  explicit HttpRequestParser(const HttpLimits& limits = HttpLimits()) : limits_(limits) {}

  // `data`: every byte of the connection not consumed by earlier requests
  // (on each call the same bytes as before, perhaps with more after them).
  // kComplete: request() is ready and consumed() bytes of `data` were its;
  // the rest belongs to the next request. kError: error() says why; the
  // connection cannot be read further. Call reset() before the next request.
  Result parse(std::string_view data);
  void reset();

  bool head_done() const { return stage_ >= Stage::kBody; }
  size_t consumed() const { return pos_; }
  HttpRequest& request() { return req_; }
  const HttpRequest& request() const { return req_; }
  const HttpParseError& error() const { return error_; }

 private:
  enum class Line { kLine, kPartial, kTooLong };
  enum class Stage { kRequestLine, kHeaders, kBody, kChunkSize, kChunkData, kChunkDataEnd, kTrailers, kDone, kError };
  Result fail(int status, const char* code, std::string message);
  Line next_line(std::string_view data, size_t budget, std::string_view* line);
  Result parse_head(std::string_view data);
  Result parse_chunked(std::string_view data);
  Result request_line(std::string_view line);
  Result header_line(std::string_view line);
  Result end_of_head();

  HttpLimits limits_;
  Stage stage_ = Stage::kRequestLine;
  size_t pos_ = 0;            // bytes of data parsed so far
  size_t scan_ = 0;           // bytes of data searched for the next LF
  size_t head_bytes_ = 0;     // of the request line and headers (and trailers)
  uint64_t content_length_ = 0;
  uint64_t chunk_left_ = 0;   // bytes of the current chunk still to come
  bool chunked_ = false;
  HttpRequest req_;
  HttpParseError error_;
};

}  // namespace amxqa::serve
