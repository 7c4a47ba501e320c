// http_server.h — `amxqa serve` without its command line: an HTTP/1.1 server
// on one epoll thread that only moves bytes, and --threads worker threads,
// each with its own session, that answer POST /v1/answer. A connection holds
// no worker while it is idle or still sending: it costs a descriptor and its
// buffers, is closed by the header, body or idle timeout, and only a complete
// request is queued for a worker. The queue is bounded (503 with Retry-After
// when full), and so are the connections (--max-connections: the idlest or
// slowest is closed for a new one) and the bytes of unfinished requests
// (256 MiB or two of the largest bodies: the largest is closed). SIGTERM / SIGINT stop accepting, answer every request already
// accepted, and return within the drain timeout.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "amxqa.hpp"
#include "qa_engine.h"

namespace amxqa::serve {

struct ServeOptions {
  std::string host = "127.0.0.1";
  int port = 8080;                 // 0: any free port (the one taken is printed)
  size_t max_body_bytes = 1 << 20;
  double header_timeout_s = 10;    // first byte of a request to the end of its headers
  double body_timeout_s = 30;      // end of the headers to the end of the body; also a reply's send
  double idle_timeout_s = 5;       // a connection with no request under way
  double drain_timeout_s = 30;     // SIGTERM to exit, at most
  size_t max_queue = 64;           // answers waiting for a worker; more get 503
  size_t max_connections = 1024;   // open at once; more evict the idlest, or are refused
  std::string api_key;             // empty: /v1/* needs no key
  std::vector<std::string> cors_origins;  // empty: no CORS headers
  bool ui = true;                  // the page at GET / (ui_page.h); false (--no-ui): 404 there
};

// Binds, prints "amxqa serve: listening on http://HOST:PORT ..." on stderr,
// and serves until SIGTERM or SIGINT (a second one stops the drain at once).
// Returns true after the drain; false with *error when the address cannot be
// bound or the options are unusable. Blocks SIGTERM and SIGINT in the calling
// thread (and so in the threads it starts).
bool serve_http(const amxqa::Model& model, SessionPool& pool, const ServeOptions& options,
                std::string* error);

}  // namespace amxqa::serve
