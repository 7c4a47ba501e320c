// http_routes.h — what `amxqa serve` answers a complete request with: the
// routes (POST /v1/answer, GET /v1/model, GET /health, GET /metrics, OPTIONS
// on each), the page at GET / and its own files (ui_page.h), the API key on
// /v1/*, CORS headers, 401/404/405. Pure: no sockets, no threads, so it is
// unit tested on its own (test_serve_parts).
#pragma once
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "http_access.h"
#include "http_parser.h"
#include "http_reply.h"

namespace amxqa::serve {

// One file of the page: "/" (the HTML) or one it loads ("/ui/app.js").
struct PageFile {
  std::string path;
  std::string content_type;
  std::string body;
};

// The headers every page file is sent with: scripts, styles and requests
// from the server's own origin only (no inline script or style, nothing
// remote; CSP), no content sniffing, no referrer, no framing, revalidated on
// every load (a new binary's page is never shadowed by a cached one).
std::vector<std::pair<std::string, std::string>> page_headers();

// Fixed when the server starts.
struct RouteTable {
  std::string api_key;      // empty: none required
  CorsPolicy cors;
  std::string health_body;  // {"status": "ok", "workers": N}
  std::string model_body;   // GET /v1/model
  std::function<std::string()> metrics_body;  // GET /metrics, rendered per request
  std::vector<PageFile> page;  // GET / and its files; empty (--no-ui): none of them is served
};

enum class Dispatch {
  kReply,   // *reply is the whole answer
  kAnswer,  // an authorised POST /v1/answer: a worker answers req.body; *reply
            // holds the headers (CORS) its reply must carry
};

Dispatch route_request(const HttpRequest& req, const RouteTable& table, HttpReply* reply);

}  // namespace amxqa::serve
