#include "http_server.h"

#include <httplib.h>
#include <pthread.h>
#include <signal.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <exception>
#include <thread>

#include "model_json.h"
#include "qa_response.h"

namespace amxqa::serve {

namespace {

constexpr const char* kJson = "application/json";

void send_error(httplib::Response& res, const QaError& e) {
  res.status = e.http_status;
  res.set_content(error_body(e), kJson);
}

// Errors httplib answers itself (no route, body over the limit, bad HTTP)
// get the same JSON error body as ours.
QaError http_error(int status) {
  switch (status) {
    case 400: return make_error(400, "bad_request", "malformed HTTP request");
    case 404: return make_error(404, "not_found", "no such route: POST /v1/answer, GET /health, GET /v1/model");
    case 413: return make_error(413, "body_too_large", "request body is over the limit (--max-body-bytes)");
    default: return make_error(status, "http_error", "HTTP status " + std::to_string(status));
  }
}

void answer_route(SessionPool& pool, size_t max_body_bytes, const httplib::Request& req, httplib::Response& res) {
  QaRequest parsed;
  QaError e = parse_qa_request(req.body, ParseOptions{max_body_bytes, false}, &parsed);
  if (!e.ok()) return send_error(res, e);
  QaAnswer answer;
  {
    SessionPool::Lease lease = pool.acquire();
    e = answer_request(lease.worker(), parsed, &answer);
  }
  if (!e.ok()) return send_error(res, e);
  res.set_content(answer_body(answer), kJson);
}

void add_routes(httplib::Server& server, SessionPool& pool, const std::string& model_body, size_t max_body_bytes) {
  server.Post("/v1/answer", [&pool, max_body_bytes](const httplib::Request& req, httplib::Response& res) {
    answer_route(pool, max_body_bytes, req, res);
  });
  const std::string health = "{\"status\":\"ok\",\"workers\":" + std::to_string(pool.size()) + "}";
  server.Get("/health", [health](const httplib::Request&, httplib::Response& res) { res.set_content(health, kJson); });
  server.Get("/v1/model", [&model_body](const httplib::Request&, httplib::Response& res) {
    res.set_content(model_body, kJson);
  });
  using Handled = httplib::Server::HandlerResponse;
  server.set_error_handler(httplib::Server::HandlerWithResponse([](const httplib::Request&, httplib::Response& res) {
    if (!res.body.empty()) return Handled::Unhandled;  // a body of ours already
    res.set_content(error_body(http_error(res.status)), kJson);
    return Handled::Handled;
  }));
  server.set_exception_handler([](const httplib::Request&, httplib::Response& res, std::exception_ptr ep) {
    std::string what = "unexpected error";
    try {
      if (ep) std::rethrow_exception(ep);
    } catch (const std::exception& ex) {
      what = ex.what();
    } catch (...) {
    }
    send_error(res, make_error(500, "internal", what));
  });
}

}  // namespace

bool serve_http(const amxqa::Model& model, SessionPool& pool, const ServeOptions& options, std::string* error) {
  // Signals are taken by one thread with sigwait (no async handler): block
  // them before any thread starts so every thread inherits the mask.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  const size_t workers = pool.size();
  const std::string model_body = model_info_body(model, workers, pool.at(0).max_passage_tokens);
  httplib::Server server;
  // One HTTP thread per session: a request never waits for a session while
  // its thread is free, and no thread sits without one.
  server.new_task_queue = [workers] { return new httplib::ThreadPool(workers); };
  server.set_payload_max_length(options.max_body_bytes);
  // Headers and body go out in two writes: without NODELAY, Nagle holds the
  // body until the client's delayed ACK (40 ms a request on Linux).
  server.set_tcp_nodelay(true);
  // An idle keep-alive connection holds its worker thread (and so its
  // session) until this timeout, and delays the exit after SIGTERM as long:
  // with one worker per core that must be short (httplib's default is 5 s).
  server.set_keep_alive_timeout(2);
  add_routes(server, pool, model_body, options.max_body_bytes);

  int port = options.port;
  if (port == 0) {
    port = server.bind_to_any_port(options.host);
  } else if (!server.bind_to_port(options.host, port)) {
    port = -1;
  }
  if (port < 0) {
    *error = "cannot listen on " + options.host + ":" + std::to_string(options.port);
    return false;
  }
  std::fprintf(stderr, "amxqa serve: listening on http://%s:%d (%zu workers, backend %s)\n", options.host.c_str(),
               port, workers, amxqa_isa_name(pool.at(0).session.isa()));
  std::fflush(stderr);

  std::atomic<bool> listen_returned{false};
  std::thread waiter([&] {
    int sig = 0;
    sigwait(&stop_signals, &sig);
    if (listen_returned) return;  // woken by us below, not by a signal
    std::fprintf(stderr, "amxqa serve: %s: finishing requests in flight\n", sig == SIGINT ? "SIGINT" : "SIGTERM");
    // A signal right after bind may come before listen_after_bind is running.
    while (!server.is_running() && !listen_returned) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    server.stop();
  });
  // Returns after stop(), once the thread pool has finished every accepted
  // connection; false only when accept() itself failed.
  const bool stopped = server.listen_after_bind();
  const int accept_errno = errno;
  listen_returned = true;
  pthread_kill(waiter.native_handle(), SIGTERM);  // wake the waiter if no signal came
  waiter.join();
  if (!stopped) *error = "accepting connections failed: " + std::string(std::strerror(accept_errno));
  return stopped;
}

}  // namespace amxqa::serve
