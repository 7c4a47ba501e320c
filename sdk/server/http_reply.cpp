#include "http_reply.h"

#include "qa_response.h"

namespace amxqa::serve {

HttpReply error_reply(const QaError& e) {
  HttpReply r;
  r.status = e.http_status;
  r.body = error_body(e);
  return r;
}

const char* reason_phrase(int status) {
  switch (status) {
    case 100: return "Continue";
    case 200: return "OK";
    case 204: return "No Content";
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 408: return "Request Timeout";
    case 413: return "Content Too Large";
    case 414: return "URI Too Long";
    case 417: return "Expectation Failed";
    case 422: return "Unprocessable Content";
    case 431: return "Request Header Fields Too Large";
    case 500: return "Internal Server Error";
    case 501: return "Not Implemented";
    case 503: return "Service Unavailable";
    case 505: return "HTTP Version Not Supported";
    default: return "Unknown";
  }
}

std::string serialize(const HttpReply& reply, int minor_version, bool keep_alive, bool head) {
  std::string out;
  out.reserve(160 + reply.body.size());
  out += minor_version == 0 ? "HTTP/1.0 " : "HTTP/1.1 ";
  out += std::to_string(reply.status);
  out += ' ';
  out += reason_phrase(reply.status);
  out += "\r\n";
  // 204 carries neither a body nor its length (RFC 9110 8.6).
  if (reply.status != 204) {
    out += "Content-Type: " + reply.content_type + "\r\n";
    out += "Content-Length: " + std::to_string(reply.body.size()) + "\r\n";
  }
  for (const auto& [name, value] : reply.headers) out += name + ": " + value + "\r\n";
  if (!keep_alive) out += "Connection: close\r\n";
  else if (minor_version == 0) out += "Connection: keep-alive\r\n";
  out += "\r\n";
  if (!head && reply.status != 204) out += reply.body;
  return out;
}

}  // namespace amxqa::serve
