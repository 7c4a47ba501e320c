#include "http_parser.h"

#include <algorithm>

// Every check here gives the same verdict however the bytes arrive: the
// server calls parse() at each read, with whatever prefix of the connection
// has come, and the network decides where reads split. So a check on a line
// still arriving (no LF yet) may refuse it only when every way the line
// could end would be refused with the same error, and each complete line is
// measured against its limit before anything else is read from it. A limit
// counts every byte of a line, its CR and LF included, the empty line that
// ends a head or the trailers as well. (A trailer section that ended exactly
// one byte past the framing limit used to pass whole and fail trickled:
// tests/fuzz/corpus/http_wire/trailer_end_at_limit.bin.)

namespace amxqa::serve {

namespace {

// A chunk-size line ("1a2b;ext") longer than this is not a chunk size.
constexpr size_t kMaxChunkLine = 1024;

bool is_tchar(unsigned char c) {  // RFC 9110 token characters
  if (c >= '0' && c <= '9') return true;
  if ((c | 0x20) >= 'a' && (c | 0x20) <= 'z') return true;
  return std::string_view("!#$%&'*+-.^_`|~").find(static_cast<char>(c)) != std::string_view::npos;
}

bool is_token(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return is_tchar(static_cast<unsigned char>(c)); });
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c + 32 : c);
  return out;
}

bool iequals(std::string_view a, std::string_view b) { return a.size() == b.size() && lower(a) == lower(b); }

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

bool is_ctl(unsigned char c) { return (c < 0x20 && c != '\t') || c == 0x7f; }

// A field line "name: value" (a header or a trailer): nullptr and its parts,
// or why it is malformed. A CR inside a line is a bare CR (RFC 9112 2.2): a
// control character like the others.
const char* split_field(std::string_view line, std::string_view* name, std::string_view* value) {
  if (line.front() == ' ' || line.front() == '\t') return "folded header lines are not accepted";
  const size_t colon = line.find(':');
  if (colon == std::string_view::npos || !is_token(line.substr(0, colon))) return "malformed header line";
  *name = line.substr(0, colon);
  *value = trim(line.substr(colon + 1));
  if (std::any_of(value->begin(), value->end(), [](char c) { return is_ctl(static_cast<unsigned char>(c)); }))
    return "control character in a header value";
  return nullptr;
}

// Calls f on each comma-separated element of a header value, trimmed.
template <typename F>
void for_each_element(std::string_view value, F f) {
  while (true) {
    const size_t comma = value.find(',');
    f(trim(value.substr(0, comma)));
    if (comma == std::string_view::npos) return;
    value.remove_prefix(comma + 1);
  }
}

}  // namespace

const std::string* HttpRequest::header(std::string_view lower_name) const {
  for (const auto& h : headers)
    if (h.first == lower_name) return &h.second;
  return nullptr;
}

// The next line from pos_ when all of it (LF included) fits in `budget`
// bytes: kLine, with pos_ and head_bytes_ past it and *line without its LF
// or the CR before it. kTooLong when it does not fit, or when a line still
// arriving already could not: even its LF next would take it over budget.
HttpRequestParser::Line HttpRequestParser::next_line(std::string_view data, size_t budget, std::string_view* line) {
  // The LF search resumes where the last call's stopped, so bytes that
  // trickle in are each scanned once.
  const size_t lf = data.find('\n', std::max(pos_, scan_));
  if (lf == std::string_view::npos) {
    scan_ = data.size();
    return data.size() - pos_ + 1 > budget ? Line::kTooLong : Line::kPartial;
  }
  if (lf + 1 - pos_ > budget) return Line::kTooLong;
  *line = data.substr(pos_, lf - pos_);
  if (!line->empty() && line->back() == '\r') line->remove_suffix(1);
  head_bytes_ += lf + 1 - pos_;
  pos_ = lf + 1;
  return Line::kLine;
}

void HttpRequestParser::reset() {
  stage_ = Stage::kRequestLine;
  pos_ = scan_ = head_bytes_ = 0;
  content_length_ = chunk_left_ = 0;
  chunked_ = false;
  req_.method.clear();
  req_.target.clear();
  req_.path.clear();
  req_.minor_version = 1;
  req_.keep_alive = true;
  req_.expect_continue = false;
  req_.headers.clear();
  req_.body.clear();
  error_ = HttpParseError();
}

HttpRequestParser::Result HttpRequestParser::fail(int status, const char* code, std::string message) {
  stage_ = Stage::kError;
  error_.status = status;
  error_.code = code;
  error_.message = std::move(message);
  return Result::kError;
}

HttpRequestParser::Result HttpRequestParser::parse(std::string_view data) {
  if (stage_ == Stage::kError) return Result::kError;
  if (stage_ == Stage::kDone) return Result::kComplete;
  if (stage_ <= Stage::kHeaders) {
    const Result r = parse_head(data);
    if (r != Result::kComplete) return r;
  }
  if (stage_ == Stage::kBody) {
    if (data.size() - pos_ < content_length_) return Result::kIncomplete;
    req_.body.assign(data.substr(pos_, content_length_));
    pos_ += content_length_;
    stage_ = Stage::kDone;
    return Result::kComplete;
  }
  return parse_chunked(data);
}

// Lines up to the empty one ending the head. kComplete here means "head
// done": parse() goes on with the body.
HttpRequestParser::Result HttpRequestParser::parse_head(std::string_view data) {
  std::string_view line;
  while (stage_ <= Stage::kHeaders) {
    // head_bytes_ <= max_head_bytes: every line so far fitted.
    const Line got = next_line(data, limits_.max_head_bytes - head_bytes_, &line);
    if (got == Line::kPartial) return Result::kIncomplete;
    if (got == Line::kTooLong) {
      if (stage_ == Stage::kRequestLine) return fail(414, "uri_too_long", "the request line is over the limit");
      return fail(431, "headers_too_large", "the request's headers are over the limit");
    }
    Result r = Result::kIncomplete;
    if (stage_ == Stage::kRequestLine) {
      if (line.empty()) continue;  // RFC 9112 2.2: empty lines before a request line are ignored
      r = request_line(line);
    } else if (line.empty()) {
      r = end_of_head();
      if (r == Result::kComplete) return r;
    } else {
      r = header_line(line);
    }
    if (r == Result::kError) return r;
  }
  return Result::kComplete;
}

HttpRequestParser::Result HttpRequestParser::request_line(std::string_view line) {
  const size_t sp1 = line.find(' ');
  const size_t sp2 = sp1 == std::string_view::npos ? sp1 : line.find(' ', sp1 + 1);
  if (sp2 == std::string_view::npos || line.find(' ', sp2 + 1) != std::string_view::npos)
    return fail(400, "bad_request", "malformed request line (expected METHOD TARGET HTTP/1.x)");
  const std::string_view method = line.substr(0, sp1);
  const std::string_view target = line.substr(sp1 + 1, sp2 - sp1 - 1);
  const std::string_view version = line.substr(sp2 + 1);
  if (!is_token(method)) return fail(400, "bad_request", "malformed request method");
  const bool target_ok = (target == "*" || (!target.empty() && target.front() == '/')) &&
                         std::none_of(target.begin(), target.end(), [](char c) {
                           return static_cast<unsigned char>(c) <= 0x20 || c == 0x7f;
                         });
  if (!target_ok) return fail(400, "bad_request", "malformed request target (expected a path starting with /)");
  if (version.size() != 8 || version.substr(0, 5) != "HTTP/" || version[6] != '.' || version[5] < '0' ||
      version[5] > '9' || version[7] < '0' || version[7] > '9')
    return fail(400, "bad_request", "malformed HTTP version");
  if (version[5] != '1' || version[7] > '1')
    return fail(505, "http_version_not_supported", "only HTTP/1.0 and HTTP/1.1 are served");
  req_.method.assign(method);
  req_.target.assign(target);
  req_.path.assign(target.substr(0, target.find_first_of("?#")));
  req_.minor_version = version[7] - '0';
  req_.keep_alive = req_.minor_version == 1;
  stage_ = Stage::kHeaders;
  return Result::kIncomplete;
}

HttpRequestParser::Result HttpRequestParser::header_line(std::string_view line) {
  std::string_view name, value;
  if (const char* why = split_field(line, &name, &value)) return fail(400, "bad_request", why);
  if (req_.headers.size() >= limits_.max_headers)
    return fail(431, "headers_too_large", "more header lines than the limit");
  req_.headers.emplace_back(lower(name), std::string(value));
  return Result::kIncomplete;
}

// What the headers say about the body and the connection.
HttpRequestParser::Result HttpRequestParser::end_of_head() {
  bool has_length = false, has_te = false;
  for (const auto& [name, value] : req_.headers) {
    if (name == "content-length") {
      if (value.empty() || !std::all_of(value.begin(), value.end(), [](char c) { return c >= '0' && c <= '9'; }))
        return fail(400, "bad_request", "malformed Content-Length");
      const std::string_view digits = std::string_view(value).substr(std::min(value.find_first_not_of('0'), value.size()));
      if (digits.size() > 18) return fail(413, "body_too_large", "request body is over the limit (--max-body-bytes)");
      uint64_t n = 0;
      for (char c : digits) n = n * 10 + static_cast<uint64_t>(c - '0');
      if (has_length && n != content_length_) return fail(400, "bad_request", "conflicting Content-Length headers");
      has_length = true;
      content_length_ = n;
    } else if (name == "transfer-encoding") {
      if (has_te) return fail(400, "bad_request", "more than one Transfer-Encoding header");
      has_te = true;
      if (!iequals(value, "chunked"))
        return fail(501, "not_implemented", "only Transfer-Encoding: chunked is supported");
    } else if (name == "connection") {
      for_each_element(value, [this](std::string_view token) {
        if (iequals(token, "close")) req_.keep_alive = false;
        if (iequals(token, "keep-alive") && req_.minor_version == 0) req_.keep_alive = true;
      });
    } else if (name == "expect") {
      if (!iequals(value, "100-continue")) return fail(417, "expectation_failed", "only Expect: 100-continue is supported");
      req_.expect_continue = req_.minor_version == 1;
    }
  }
  // RFC 9112 6.1: both framings at once is how requests are smuggled.
  if (has_te && has_length) return fail(400, "bad_request", "both Content-Length and Transfer-Encoding");
  if (has_te && req_.minor_version == 0) return fail(400, "bad_request", "Transfer-Encoding in an HTTP/1.0 request");
  if (content_length_ > limits_.max_body_bytes)
    return fail(413, "body_too_large", "request body is over the limit (--max-body-bytes)");
  chunked_ = has_te;
  if (!chunked_ && content_length_ == 0) req_.expect_continue = false;
  stage_ = chunked_ ? Stage::kChunkSize : Stage::kBody;
  head_bytes_ = 0;  // from here on: the chunked framing's bytes (size lines, CRLFs, trailers)
  return Result::kComplete;
}

HttpRequestParser::Result HttpRequestParser::parse_chunked(std::string_view data) {
  // Framing may be as long as the head limit or the body limit: enough for
  // any honest client, and it bounds what one-byte chunks can cost.
  const size_t max_framing = std::max(limits_.max_head_bytes, limits_.max_body_bytes);
  std::string_view line;
  while (true) {
    switch (stage_) {
      case Stage::kChunkSize: {
        // Only the line's own limit is checked before it is whole: the
        // framing limit (431) too would give a line still arriving one
        // error and the same line whole another (400 when it ends too long).
        const Line got = next_line(data, kMaxChunkLine, &line);
        if (got == Line::kPartial) return Result::kIncomplete;
        if (got == Line::kTooLong) return fail(400, "bad_request", "malformed chunk size line");
        size_t digits = 0;
        uint64_t size = 0;
        for (; digits < line.size(); ++digits) {
          const char c = line[digits];
          int v = -1;
          if (c >= '0' && c <= '9') v = c - '0';
          else if ((c | 0x20) >= 'a' && (c | 0x20) <= 'f') v = (c | 0x20) - 'a' + 10;
          if (v < 0) break;
          size = size * 16 + static_cast<uint64_t>(v);
          // Checked at each digit, so size never overflows.
          if (size > limits_.max_body_bytes - req_.body.size())
            return fail(413, "body_too_large", "request body is over the limit (--max-body-bytes)");
        }
        const std::string_view rest = trim(line.substr(digits));
        if (digits == 0 || (!rest.empty() && rest.front() != ';'))
          return fail(400, "bad_request", "malformed chunk size line");
        if (std::any_of(rest.begin(), rest.end(), [](char c) { return is_ctl(static_cast<unsigned char>(c)); }))
          return fail(400, "bad_request", "control character in a chunk extension");
        chunk_left_ = size;
        stage_ = size == 0 ? Stage::kTrailers : Stage::kChunkData;
        break;
      }
      case Stage::kChunkData: {
        const size_t take = static_cast<size_t>(std::min<uint64_t>(chunk_left_, data.size() - pos_));
        req_.body.append(data.substr(pos_, take));
        pos_ += take;
        chunk_left_ -= take;
        if (chunk_left_ > 0) return Result::kIncomplete;
        stage_ = Stage::kChunkDataEnd;
        break;
      }
      case Stage::kChunkDataEnd: {
        const Line got = next_line(data, 2, &line);  // CRLF, or a bare LF
        if (got == Line::kPartial) return Result::kIncomplete;
        if (got == Line::kTooLong || !line.empty()) return fail(400, "bad_request", "chunk data longer than its size");
        stage_ = Stage::kChunkSize;
        break;
      }
      case Stage::kTrailers: {
        // Trailer fields are checked like headers, then dropped: nothing
        // here needs them. The empty line that ends them counts too.
        const Line got = next_line(data, max_framing - head_bytes_, &line);
        if (got == Line::kPartial) return Result::kIncomplete;
        if (got == Line::kTooLong) return fail(431, "headers_too_large", "chunked framing over the limit");
        if (line.empty()) {
          stage_ = Stage::kDone;
          return Result::kComplete;
        }
        std::string_view name, value;
        if (const char* why = split_field(line, &name, &value)) return fail(400, "bad_request", why);
        break;
      }
      default:
        return fail(500, "internal", "parser in an unexpected state");
    }
    if (head_bytes_ > max_framing) return fail(431, "headers_too_large", "chunked framing over the limit");
  }
}

}  // namespace amxqa::serve
