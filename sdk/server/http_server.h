// http_server.h — `amxqa serve` without its command line: the cpp-httplib
// server (POST /v1/answer, GET /health, GET /v1/model) over a SessionPool,
// with one HTTP worker thread per session, until SIGTERM or SIGINT.
#pragma once
#include <cstddef>
#include <string>

#include "amxqa.hpp"
#include "qa_engine.h"

namespace amxqa::serve {

struct ServeOptions {
  std::string host = "127.0.0.1";
  int port = 8080;                 // 0: any free port (the one taken is printed)
  size_t max_body_bytes = 1 << 20;
};

// Binds, prints "amxqa serve: listening on http://HOST:PORT ..." on stderr,
// and serves. SIGTERM / SIGINT stop accepting, let the requests in flight
// finish, and return true. False with *error when the address cannot be bound.
// Blocks SIGTERM and SIGINT in the calling thread (and the threads it starts).
bool serve_http(const amxqa::Model& model, SessionPool& pool, const ServeOptions& options,
                std::string* error);

}  // namespace amxqa::serve
