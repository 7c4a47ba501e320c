#include "http_routes.h"

namespace amxqa::serve {

namespace {

constexpr const char* kPrometheusText = "text/plain; version=0.0.4; charset=utf-8";
constexpr const char* kRoutesList = "POST /v1/answer, GET /v1/model, GET /health, GET /metrics";
constexpr const char* kPageAllow = "GET, HEAD, OPTIONS";

struct RouteInfo {
  const char* path;
  const char* allow;  // the Allow header: methods served there
};
constexpr RouteInfo kRoutes[] = {
    {"/v1/answer", "POST, OPTIONS"},
    {"/v1/model", "GET, HEAD, OPTIONS"},
    {"/health", "GET, HEAD, OPTIONS"},
    {"/metrics", "GET, HEAD, OPTIONS"},
};

const RouteInfo* find_route(const std::string& path) {
  for (const RouteInfo& r : kRoutes)
    if (path == r.path) return &r;
  return nullptr;
}

const PageFile* find_page_file(const std::string& path, const std::vector<PageFile>& page) {
  for (const PageFile& f : page)
    if (path == f.path) return &f;
  return nullptr;
}

std::string routes_list(const RouteTable& table) {
  return std::string(kRoutesList) + (table.page.empty() ? "" : ", GET / (the page)");
}

void set_error(HttpReply* reply, int status, const char* code, std::string message) {
  reply->status = status;
  reply->content_type = "application/json";
  reply->body = error_reply(make_error(status, code, std::move(message))).body;
}

void set_body(HttpReply* reply, const std::string& body, const char* content_type) {
  reply->status = 200;
  reply->content_type = content_type;
  reply->body = body;
}

}  // namespace

std::vector<std::pair<std::string, std::string>> page_headers() {
  return {{"Content-Security-Policy", "default-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"},
          {"X-Content-Type-Options", "nosniff"},
          {"Referrer-Policy", "no-referrer"},
          {"X-Frame-Options", "DENY"},
          {"Cache-Control", "no-cache"}};
}

Dispatch route_request(const HttpRequest& req, const RouteTable& table, HttpReply* reply) {
  const std::string* origin = req.header("origin");
  reply->headers = table.cors.reply_headers(origin);
  const RouteInfo* route = find_route(req.path);
  const PageFile* file = find_page_file(req.path, table.page);

  // Preflights carry no credentials (browsers never send them): no key asked.
  if (req.method == "OPTIONS") {
    if (route == nullptr && file == nullptr && req.path != "*") {
      set_error(reply, 404, "not_found", "no such route: " + routes_list(table));
      return Dispatch::kReply;
    }
    reply->status = 204;
    reply->body.clear();
    reply->headers.emplace_back("Allow", route ? route->allow : file ? kPageAllow : "GET, HEAD, POST, OPTIONS");
    for (auto& h : table.cors.preflight_headers(origin, req.header("access-control-request-headers")))
      reply->headers.push_back(std::move(h));
    return Dispatch::kReply;
  }
  if (req.path.compare(0, 4, "/v1/") == 0 && !bearer_authorized(req.header("authorization"), table.api_key)) {
    set_error(reply, 401, "unauthorized", "missing or wrong API key: send Authorization: Bearer <key>");
    reply->headers.emplace_back("WWW-Authenticate", "Bearer");
    return Dispatch::kReply;
  }
  const bool get = req.method == "GET" || req.method == "HEAD";
  if (file != nullptr) {  // the page needs no key: it asks for one, and sends it to /v1/*
    if (get) {
      set_body(reply, file->body, file->content_type.c_str());
      for (auto& h : page_headers()) reply->headers.push_back(std::move(h));
    } else {
      set_error(reply, 405, "method_not_allowed", req.method + " is not served on " + file->path + " (" + kPageAllow + ")");
      reply->headers.emplace_back("Allow", kPageAllow);
    }
    return Dispatch::kReply;
  }
  if (route == nullptr) {
    set_error(reply, 404, "not_found", "no such route: " + routes_list(table));
    return Dispatch::kReply;
  }
  const std::string path(route->path);
  if (path == "/v1/answer" && req.method == "POST") return Dispatch::kAnswer;
  if (path == "/v1/model" && get) set_body(reply, table.model_body, "application/json");
  else if (path == "/health" && get) set_body(reply, table.health_body, "application/json");
  else if (path == "/metrics" && get) set_body(reply, table.metrics_body ? table.metrics_body() : "", kPrometheusText);
  else {
    set_error(reply, 405, "method_not_allowed", req.method + " is not served on " + path + " (" + route->allow + ")");
    reply->headers.emplace_back("Allow", route->allow);
  }
  return Dispatch::kReply;
}

}  // namespace amxqa::serve
