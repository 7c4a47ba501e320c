// http_reply.h — a response of `amxqa serve` and its bytes on the wire
// (status line, Content-Length, Connection, the reply's own headers).
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "qa_request.h"

namespace amxqa::serve {

struct HttpReply {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;  // beyond the ones serialize writes
  bool close = false;  // close the connection after it (an unreadable request, shutdown)
};

// A reply with the JSON error body {"error": {"code", "message"}}.
HttpReply error_reply(const QaError& e);

// "Not Found" for 404, ...; "Unknown" for a status not listed.
const char* reason_phrase(int status);

// The reply as bytes. `keep_alive`: the connection stays open after it
// (HTTP/1.0 clients are told so); `head`: headers only (a HEAD request),
// Content-Length still the body's.
std::string serialize(const HttpReply& reply, int minor_version, bool keep_alive, bool head);

}  // namespace amxqa::serve
