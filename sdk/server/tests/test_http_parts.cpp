// test_http_parts.cpp — the transport pieces of `amxqa serve` without
// sockets (suite "unit"): the HTTP/1.x request reader fed whole and a byte at
// a time, its limits and error classes; the API key and CORS checks; the
// routes (401, 404, 405, OPTIONS), the page's files and their headers; the
// bounded queue; the metrics text.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "bounded_queue.h"
#include "http_access.h"
#include "http_parser.h"
#include "http_reply.h"
#include "http_routes.h"
#include "serve_metrics.h"
#include "ui_page.h"

using namespace amxqa::serve;
using Result = HttpRequestParser::Result;

namespace {

// Parses `wire` as a byte at a time arrives; returns the final result.
Result trickle(HttpRequestParser& p, const std::string& wire) {
  Result r = Result::kIncomplete;
  for (size_t n = 1; n <= wire.size() && r == Result::kIncomplete; ++n) r = p.parse(std::string_view(wire).substr(0, n));
  return r;
}

HttpLimits make_limits(size_t head_bytes, size_t headers, size_t body_bytes) {
  HttpLimits l;
  l.max_head_bytes = head_bytes;
  l.max_headers = headers;
  l.max_body_bytes = body_bytes;
  return l;
}

int error_status(const std::string& wire, HttpLimits limits = HttpLimits()) {
  HttpRequestParser p(limits);
  return p.parse(wire) == Result::kError ? p.error().status : 0;
}

// What reading one connection's bytes gives, request after request, when
// reads bring `reads[i]` more bytes each (cycled; empty: all at once): each
// request's line, flags, body and size, then the error or "incomplete".
std::string read_connection(const std::string& wire, const HttpLimits& limits, const std::vector<size_t>& reads) {
  std::string out;
  HttpRequestParser p(limits);
  size_t start = 0, seen = reads.empty() ? wire.size() : 0, step = 0;
  while (start < wire.size()) {
    if (!reads.empty()) seen = std::min(wire.size(), seen + reads[step++ % reads.size()]);
    const Result r = p.parse(std::string_view(wire).substr(start, seen - start));
    if (r == Result::kIncomplete && seen < wire.size()) continue;
    const HttpRequest& q = p.request();
    const std::string line = q.method + ' ' + q.target + " 1." + std::to_string(q.minor_version);
    if (r == Result::kError)
      return out + "error " + std::to_string(p.error().status) + ' ' + p.error().code + (q.method.empty() ? "" : " after " + line);
    if (r == Result::kIncomplete) return out + "incomplete";
    out += line + (q.keep_alive ? " ka" : "") + (q.expect_continue ? " 100" : "") + " [" + q.body + "] " +
           std::to_string(p.consumed()) + '\n';
    start += p.consumed();
    p.reset();
  }
  return out;
}

// Reads `wire` at once, a byte at a time, and in two reads split at each
// byte; all must agree. Returns what they read.
std::string same_every_way(const std::string& wire, const HttpLimits& limits = HttpLimits()) {
  const std::string whole = read_connection(wire, limits, {});
  CHECK_MESSAGE(read_connection(wire, limits, {1}) == whole, "a byte at a time");
  for (size_t k = 1; k < wire.size(); ++k) {
    const std::string split = read_connection(wire, limits, {k, wire.size()});
    if (split != whole) {
      CHECK_MESSAGE(split == whole, "split after byte " << k);
      break;
    }
  }
  return whole;
}

HttpRequest make_request(const std::string& method, const std::string& path,
                         std::vector<std::pair<std::string, std::string>> headers = {}) {
  HttpRequest r;
  r.method = method;
  r.target = r.path = path;
  r.headers = std::move(headers);
  return r;
}

const std::string* find_header(const HttpReply& reply, const std::string& name) {
  for (const auto& h : reply.headers)
    if (h.first == name) return &h.second;
  return nullptr;
}

}  // namespace

TEST_SUITE("unit") {
  TEST_CASE("a request reads the same whole and a byte at a time") {
    const std::string wire =
        "POST /v1/answer?x=1 HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nX-Pad:  v v \r\n\r\nhello"
        "GET /health HTTP/1.1\r\n\r\n";
    HttpRequestParser whole, slow;
    REQUIRE(whole.parse(wire) == Result::kComplete);
    REQUIRE(trickle(slow, wire) == Result::kComplete);
    for (HttpRequestParser* p : {&whole, &slow}) {
      const HttpRequest& r = p->request();
      CHECK(r.method == "POST");
      CHECK(r.path == "/v1/answer");
      CHECK(r.target == "/v1/answer?x=1");
      CHECK(r.body == "hello");
      CHECK(r.keep_alive);
      REQUIRE(r.header("x-pad") != nullptr);
      CHECK(*r.header("x-pad") == "v v");
      CHECK(r.header("content-length") != nullptr);
      CHECK(p->consumed() == wire.find("GET"));
    }
    whole.reset();
    REQUIRE(whole.parse(std::string_view(wire).substr(wire.find("GET"))) == Result::kComplete);
    CHECK(whole.request().path == "/health");
    CHECK(whole.request().body.empty());
  }

  TEST_CASE("chunked bodies are decoded, extensions and trailers skipped") {
    const std::string wire =
        "POST /v1/answer HTTP/1.1\r\nTransfer-Encoding: Chunked\r\n\r\n3;x=y\r\nabc\r\nA\r\n0123456789\r\n0\r\nT: 1\r\n\r\n";
    HttpRequestParser whole, slow;
    REQUIRE(whole.parse(wire) == Result::kComplete);
    REQUIRE(trickle(slow, wire) == Result::kComplete);
    CHECK(whole.request().body == "abc0123456789");
    CHECK(slow.request().body == "abc0123456789");
    CHECK(whole.consumed() == wire.size());
  }

  TEST_CASE("keep-alive, HTTP/1.0 and Expect") {
    HttpRequestParser p;
    REQUIRE(p.parse("GET / HTTP/1.0\r\n\r\n") == Result::kComplete);
    CHECK_FALSE(p.request().keep_alive);
    p.reset();
    REQUIRE(p.parse("GET / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n") == Result::kComplete);
    CHECK(p.request().keep_alive);
    p.reset();
    REQUIRE(p.parse("GET / HTTP/1.1\r\nConnection: upgrade, close\r\n\r\n") == Result::kComplete);
    CHECK_FALSE(p.request().keep_alive);
    p.reset();
    CHECK(p.parse("POST / HTTP/1.1\r\nExpect: 100-continue\r\nContent-Length: 4\r\n\r\nab") == Result::kIncomplete);
    CHECK(p.head_done());
    CHECK(p.request().expect_continue);
    p.reset();
    REQUIRE(p.parse("\r\n\r\nGET / HTTP/1.1\nHost: x\n\n") == Result::kComplete);  // bare LF, leading blank lines
    CHECK(p.request().path == "/");
  }

  TEST_CASE("each malformed or oversized request has its status") {
    CHECK(error_status("hello\r\n\r\n") == 400);
    CHECK(error_status("GET /  HTTP/1.1\r\n\r\n") == 400);
    CHECK(error_status("GET x HTTP/1.1\r\n\r\n") == 400);
    CHECK(error_status("G@T / HTTP/1.1\r\n\r\n") == 400);
    CHECK(error_status("GET / HTTP/1.2\r\n\r\n") == 505);
    CHECK(error_status("GET / HTTP/2.0\r\n\r\n") == 505);
    CHECK(error_status("GET / HTTP/1.1\r\nA: b\r\n c\r\n\r\n") == 400);
    CHECK(error_status("GET / HTTP/1.1\r\nA b\r\n\r\n") == 400);
    CHECK(error_status("GET / HTTP/1.1\r\n: b\r\n\r\n") == 400);
    CHECK(error_status(std::string("GET / HTTP/1.1\r\nA: \0\r\n\r\n", 24)) == 400);
    CHECK(error_status("POST / HTTP/1.1\r\nContent-Length: -1\r\n\r\n") == 400);
    CHECK(error_status("POST / HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n") == 400);
    CHECK(error_status("POST / HTTP/1.1\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n") == 400);
    CHECK(error_status("POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n") == 400);
    CHECK(error_status("POST / HTTP/1.1\r\nTransfer-Encoding: gzip, chunked\r\n\r\n") == 501);
    CHECK(error_status("POST / HTTP/1.1\r\nExpect: x\r\n\r\n") == 417);
    CHECK(error_status("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nq\r\n") == 400);
    CHECK(error_status("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nab\r\n") == 400);
    const HttpLimits small = make_limits(64, 2, 8);
    CHECK(error_status("GET /" + std::string(100, 'a'), small) == 414);
    CHECK(error_status("GET / HTTP/1.1\r\nA: " + std::string(100, 'a'), small) == 431);
    CHECK(error_status("GET / HTTP/1.1\r\nA: 1\r\nB: 2\r\nC: 3\r\n\r\n", small) == 431);
    CHECK(error_status("POST / HTTP/1.1\r\nContent-Length: 9\r\n\r\n", small) == 413);
    CHECK(error_status("POST / HTTP/1.1\r\nContent-Length: 99999999999999999999999\r\n\r\n", small) == 413);
    CHECK(error_status("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nabcde\r\n4\r\nabcd\r\n", small) == 413);
    CHECK(error_status("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nfffffffffffffffffffffff\r\n", small) == 413);
    CHECK(error_status("POST / HTTP/1.1\r\nContent-Length: 8\r\n\r\n", small) == 0);  // exactly the limit: waits
  }

  TEST_CASE("trailers ending one byte past the framing limit fail however they arrive (issue 47)") {
    // tests/fuzz/corpus/http_wire/trailer_end_at_limit.bin: the framing
    // (size lines, CRLFs, trailers) is limited to max(head, body) = 80 bytes;
    // here it is 80 before the CRLF that ends the trailers. Read whole, that
    // CRLF was not counted and the request passed; trickled, a read ending
    // after its CR was counted and failed 431.
    const HttpLimits limits = make_limits(80, 4, 24);
    const std::string head = "POST /v1/answer HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n5;ext=1\r\nhello\r\n0\r\n";
    const std::string at_limit = "X-Trailer: " + std::string(53, 'c') + "\r\n";  // 14 + 66 = 80 framing bytes
    CHECK(same_every_way(head + at_limit + "\r\n", limits) == "error 431 headers_too_large after POST /v1/answer 1.1");
    const std::string under = "X-Trailer: " + std::string(51, 'c') + "\r\n";  // 78 + the final CRLF = 80
    CHECK(same_every_way(head + under + "\r\n", limits) == "POST /v1/answer 1.1 ka [hello] 141\n");
    CHECK(same_every_way(head + under + "\n", limits) == "POST /v1/answer 1.1 ka [hello] 140\n");
  }

  TEST_CASE("every limit and state reads the same whole, a byte at a time and split anywhere") {
    const HttpLimits small = make_limits(64, 2, 8);
    const std::string post_chunked = "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n";
    const std::string ok = "POST / 1.1 ka [abc] ";
    // Request line: 64 bytes with its CRLF fit; 65 do not, even before the
    // LF comes. A head already at the limit cannot end: 431 before its last
    // line starts to arrive.
    const std::string line64 = "GET /" + std::string(48, 'a') + " HTTP/1.1\r\n";
    REQUIRE(line64.size() == 64);
    const std::string full = "error 431 headers_too_large after GET /" + std::string(48, 'a') + " 1.1";
    CHECK(same_every_way(line64, small) == full);
    CHECK(same_every_way(line64 + "\r\n", small) == full);
    CHECK(same_every_way(line64.substr(0, 63), small) == "incomplete");
    CHECK(same_every_way("GET /" + std::string(49, 'a') + " HTTP/1.1\r\n", small) == "error 414 uri_too_long");
    CHECK(same_every_way("GET /" + std::string(59, 'a'), small) == "error 414 uri_too_long");
    // Headers: the empty line that ends the head counts; one byte less fits.
    const std::string head62 = "GET / HTTP/1.1\r\nA: " + std::string(41, 'a') + "\r\n";
    REQUIRE(head62.size() == 62);
    CHECK(same_every_way(head62 + "\r\n", small) == "GET / 1.1 ka [] 64\n");
    CHECK(same_every_way(head62.substr(0, 20) + "a" + head62.substr(20) + "\r\n", small) ==
          "error 431 headers_too_large after GET / 1.1");
    CHECK(same_every_way(head62.substr(0, 20) + "a" + head62.substr(20) + "\n", small) == "GET / 1.1 ka [] 64\n");
    CHECK(same_every_way("GET / HTTP/1.1\r\nA: 1\r\nB: 2\r\nC: 3\r\n\r\n", small) ==
          "error 431 headers_too_large after GET / 1.1");
    // Chunk-size lines: 1,024 bytes with the CRLF fit, 1,025 do not; within
    // that, the framing limit (64 here) is 431 once the line is whole.
    CHECK(same_every_way(post_chunked + "3;" + std::string(1020, 'x') + "\r\nabc\r\n0\r\n\r\n") ==
          "POST / 1.1 ka [abc] " + std::to_string(post_chunked.size() + 1024 + 10) + "\n");
    CHECK(same_every_way(post_chunked + "3;" + std::string(1021, 'x') + "\r\nabc\r\n0\r\n\r\n") ==
          "error 400 bad_request after POST / 1.1");
    CHECK(same_every_way(post_chunked + "3;" + std::string(100, 'x') + "\r\nabc\r\n0\r\n\r\n", small) ==
          "error 431 headers_too_large after POST / 1.1");
    CHECK(same_every_way(post_chunked + "3;x=y\r\nabc\r\n0\r\n\r\n", small) == ok + "64\n");
    CHECK(same_every_way(post_chunked + "9\r\n", small) == "error 413 body_too_large after POST / 1.1");
    CHECK(same_every_way(post_chunked + "3\r\nabcd\r\n", small) == "error 400 bad_request after POST / 1.1");
    CHECK(same_every_way(post_chunked + "3\r\nabc\r\r\n", small) == "error 400 bad_request after POST / 1.1");
    // Chunk extensions and trailers: no control characters, a bare CR included.
    CHECK(same_every_way(post_chunked + "3;x=1\ry\r\nabc\r\n0\r\n\r\n") == "error 400 bad_request after POST / 1.1");
    CHECK(same_every_way(post_chunked + "3;x=\x01\r\nabc\r\n0\r\n\r\n") == "error 400 bad_request after POST / 1.1");
    CHECK(same_every_way(post_chunked + "3\r\nabc\r\n0\r\nT: 1\r2\r\n\r\n") == "error 400 bad_request after POST / 1.1");
    CHECK(same_every_way(post_chunked + "3\r\nabc\r\n0\r\nnot a field\r\n\r\n") == "error 400 bad_request after POST / 1.1");
    CHECK(same_every_way(post_chunked + "3\r\nabc\r\n0\r\n folded\r\n\r\n") == "error 400 bad_request after POST / 1.1");
    CHECK(same_every_way(post_chunked + "3\r\nabc\r\n0\r\nT: 1\r\n\r\n") ==
          ok + std::to_string(post_chunked.size() + 19) + "\n");
    // Expect: 100-continue is read from the head alone, whatever came after it.
    CHECK(same_every_way("POST / HTTP/1.1\r\nExpect: 100-continue\r\nContent-Length: 3\r\n\r\nabc") ==
          "POST / 1.1 ka 100 [abc] 63\n");
    CHECK(same_every_way("POST / HTTP/1.1\r\nExpect: 100-continue\r\nContent-Length: 0\r\n\r\n") ==
          "POST / 1.1 ka [] 60\n");
    CHECK(same_every_way("POST / HTTP/1.1\r\nExpect: 200-ok\r\n\r\n") == "error 417 expectation_failed after POST / 1.1");
    // Pipelining: requests before an error are read; nothing after it is.
    CHECK(same_every_way("GET /a HTTP/1.1\r\n\r\nGET /b HTTP/1.0\r\n\r\nBAD\r\n\r\nGET /c HTTP/1.1\r\n\r\n") ==
          "GET /a 1.1 ka [] 19\nGET /b 1.0 [] 19\nerror 400 bad_request");
    CHECK(same_every_way(post_chunked + "3\r\nabc\r\n0\r\n\r\nGET / HTTP/1.1\r\n") ==
          ok + std::to_string(post_chunked.size() + 13) + "\nincomplete");
    // CR/LF: bare LF ends lines; a CR not before an LF is not a line end.
    CHECK(same_every_way("\r\n\nGET / HTTP/1.1\nA: b\n\n") == "GET / 1.1 ka [] 24\n");
    CHECK(same_every_way("GET / HTTP/1.1\r\r\n\r\n") == "error 400 bad_request");
    CHECK(same_every_way("GET / HTTP/1.1\r\nA: b\rC: d\r\n\r\n") == "error 400 bad_request after GET / 1.1");
  }

  TEST_CASE("the API key: Bearer scheme, any case, exact key") {
    const std::string key = "s3cret";
    auto ok = [&](const std::string& header) { return bearer_authorized(&header, key); };
    CHECK(ok("Bearer s3cret"));
    CHECK(ok("bEaReR   s3cret"));
    CHECK_FALSE(ok("Bearer s3cre"));
    CHECK_FALSE(ok("Bearer s3cret "));
    CHECK_FALSE(ok("Bearer s3cretx"));
    CHECK_FALSE(ok("Basic s3cret"));
    CHECK_FALSE(ok("Bearers3cret"));
    CHECK_FALSE(ok("s3cret"));
    CHECK_FALSE(bearer_authorized(nullptr, key));
    CHECK(bearer_authorized(nullptr, ""));  // no key configured
    CHECK(constant_time_equal("abc", "abc"));
    CHECK_FALSE(constant_time_equal("abd", "abc"));
    CHECK_FALSE(constant_time_equal("ab", "abc"));
    CHECK_FALSE(constant_time_equal("abcd", "abc"));
    std::string why;
    CHECK(valid_api_key("k-1_2.3~", &why));
    CHECK_FALSE(valid_api_key("two words", &why));
    CHECK_FALSE(valid_api_key("line\nbreak", &why));
    CHECK_FALSE(valid_api_key("", &why));
  }

  TEST_CASE("CORS: listed origins echoed, others get nothing, malformed ones refused") {
    CorsPolicy cors;
    std::string why;
    REQUIRE(cors.set_origins({"https://a.example", "http://b.example:8080"}, &why));
    const std::string a = "https://a.example", evil = "https://evil.example";
    const auto h = cors.reply_headers(&a);
    REQUIRE(h.size() == 2);
    CHECK(h[0].second == a);
    CHECK(h[1] == std::make_pair(std::string("Vary"), std::string("Origin")));
    CHECK(cors.reply_headers(&evil).empty());
    CHECK(cors.reply_headers(nullptr).empty());
    const std::string asked = "X-Custom, content-type", injected = "a\r\nSet-Cookie: x";
    CHECK(cors.preflight_headers(&a, &asked)[1].second == asked);
    CHECK(cors.preflight_headers(&a, &injected)[1].second == "Authorization, Content-Type");
    CHECK(cors.preflight_headers(&evil, &asked).empty());
    REQUIRE(cors.set_origins({"*"}, &why));
    CHECK(cors.reply_headers(&evil)[0].second == "*");
    CHECK_FALSE(cors.set_origins({"https://a.example\r\nX: y"}, &why));
    CHECK_FALSE(cors.set_origins({""}, &why));
    CHECK_FALSE(cors.enabled());
  }

  TEST_CASE("routes: the key on /v1/*, 404, 405, OPTIONS, HEAD") {
    RouteTable t;
    t.api_key = "k";
    std::string why;
    REQUIRE(t.cors.set_origins({"https://a.example"}, &why));
    t.health_body = "{\"status\":\"ok\"}";
    t.model_body = "{\"m\":1}";
    t.metrics_body = [] { return std::string("amxqa_workers 1\n"); };
    HttpReply reply;
    CHECK(route_request(make_request("POST", "/v1/answer"), t, &reply) == Dispatch::kReply);
    CHECK(reply.status == 401);
    REQUIRE(find_header(reply, "WWW-Authenticate") != nullptr);
    CHECK(route_request(make_request("POST", "/v1/answer", {{"authorization", "Bearer k"}}), t, &reply) ==
          Dispatch::kAnswer);
    CHECK(route_request(make_request("GET", "/v1/answer", {{"authorization", "Bearer k"}}), t, &reply) ==
          Dispatch::kReply);
    CHECK(reply.status == 405);
    CHECK(*find_header(reply, "Allow") == "POST, OPTIONS");
    route_request(make_request("GET", "/v1/nope"), t, &reply);
    CHECK(reply.status == 401);  // unknown /v1 routes are not revealed without the key
    route_request(make_request("GET", "/nope"), t, &reply);
    CHECK(reply.status == 404);
    route_request(make_request("GET", "/health"), t, &reply);
    CHECK(reply.status == 200);
    CHECK(reply.body == t.health_body);
    route_request(make_request("GET", "/metrics"), t, &reply);
    CHECK(reply.status == 200);
    CHECK(reply.content_type.find("text/plain; version=0.0.4") == 0);
    route_request(make_request("OPTIONS", "/v1/answer",
                               {{"origin", "https://a.example"}, {"access-control-request-method", "POST"}}),
                  t, &reply);
    CHECK(reply.status == 204);
    CHECK(*find_header(reply, "Access-Control-Allow-Origin") == "https://a.example");
    CHECK(find_header(reply, "Access-Control-Allow-Methods") != nullptr);
    CHECK(route_request(make_request("POST", "/v1/answer", {{"origin", "https://a.example"}, {"authorization", "Bearer k"}}),
                        t, &reply) == Dispatch::kAnswer);
    CHECK(*find_header(reply, "Access-Control-Allow-Origin") == "https://a.example");  // carried to the answer
    route_request(make_request("OPTIONS", "/nope"), t, &reply);
    CHECK(reply.status == 404);

    HttpReply head;
    head.body = "12345";
    const std::string wire = serialize(head, 1, true, true);
    CHECK(wire.find("Content-Length: 5\r\n") != std::string::npos);
    CHECK(wire.substr(wire.size() - 4) == "\r\n\r\n");
    CHECK(serialize(head, 0, true, false).find("Connection: keep-alive") != std::string::npos);
    CHECK(serialize(head, 1, false, false).find("Connection: close") != std::string::npos);
  }

  TEST_CASE("the page: GET / and its own files only, no key, strict headers; none with --no-ui") {
    RouteTable t;
    t.api_key = "k";
    t.model_body = "{}";
    t.page = embedded_page();
    // The three files of sdk/server/ui, each as the HTML links it, and the sample passage.
    REQUIRE(t.page.size() == 4);
    std::string html;
    for (const PageFile& f : t.page) {
      HttpReply reply;
      CHECK(route_request(make_request("GET", f.path), t, &reply) == Dispatch::kReply);
      CHECK(reply.status == 200);  // no key: the page asks for one and sends it to /v1/*
      CHECK(reply.body == f.body);
      CHECK(!reply.body.empty());
      CHECK(reply.content_type.find("; charset=utf-8") != std::string::npos);
      REQUIRE(find_header(reply, "Content-Security-Policy") != nullptr);
      CHECK(find_header(reply, "Content-Security-Policy")->find("default-src 'self'") == 0);
      CHECK(*find_header(reply, "X-Content-Type-Options") == "nosniff");
      CHECK(*find_header(reply, "Referrer-Policy") == "no-referrer");
      if (f.path == "/") html = f.body;
    }
    CHECK(html.find("src=\"/ui/app.js\"") != std::string::npos);
    CHECK(html.find("href=\"/ui/app.css\"") != std::string::npos);
    CHECK(t.page.back().path == "/ui/lighthouse.txt");
    // No inline script or style for the CSP to refuse: the only <script> is the file.
    CHECK(html.find("<script src=") == html.find("<script"));
    CHECK(html.find("<style") == std::string::npos);
    CHECK(html.find(" style=") == std::string::npos);
    CHECK(html.find(" onclick=") == std::string::npos);

    HttpReply reply;
    route_request(make_request("HEAD", "/ui/app.js"), t, &reply);
    CHECK(reply.status == 200);
    route_request(make_request("POST", "/"), t, &reply);
    CHECK(reply.status == 405);
    CHECK(*find_header(reply, "Allow") == "GET, HEAD, OPTIONS");
    route_request(make_request("GET", "/ui/"), t, &reply);
    CHECK(reply.status == 404);  // nothing but the files themselves
    route_request(make_request("GET", "/ui/../index.html"), t, &reply);
    CHECK(reply.status == 404);
    route_request(make_request("GET", "/index.html"), t, &reply);
    CHECK(reply.status == 404);
    CHECK(reply.body.find("GET / (the page)") != std::string::npos);
    route_request(make_request("GET", "/v1/model"), t, &reply);
    CHECK(reply.status == 401);  // the API keeps its key
    CHECK(find_header(reply, "Content-Security-Policy") == nullptr);  // and its headers

    t.page.clear();  // --no-ui
    route_request(make_request("GET", "/"), t, &reply);
    CHECK(reply.status == 404);
    CHECK(reply.body.find("the page") == std::string::npos);
    route_request(make_request("OPTIONS", "/ui/app.js"), t, &reply);
    CHECK(reply.status == 404);
  }

  TEST_CASE("the bounded queue refuses past its capacity and drains after close") {
    BoundedQueue<int> q(2);
    int a = 1, b = 2, c = 3;
    CHECK(q.try_push(std::move(a)));
    CHECK(q.try_push(std::move(b)));
    CHECK_FALSE(q.try_push(std::move(c)));
    CHECK(c == 3);  // a refused item is left as it was
    CHECK(q.size() == 2);
    q.close();
    int out = 0;
    CHECK(q.pop(&out));
    CHECK(out == 1);
    CHECK(q.pop(&out));
    CHECK_FALSE(q.pop(&out));
    int d = 4;
    CHECK_FALSE(q.try_push(std::move(d)));
  }

  TEST_CASE("metrics: counters by route and status, a cumulative histogram, the gauges") {
    ServeMetrics m;
    m.count_reply(Route::kAnswer, 200);
    m.count_reply(Route::kAnswer, 200);
    m.count_reply(Route::kOther, 404);
    m.count_reply(Route::kOther, 9999);  // out of range: ignored
    m.observe_answer(0.0002, true);
    m.observe_answer(0.3, false);
    m.observe_answer(100.0, false);
    CHECK(m.replies(Route::kAnswer, 200) == 2);
    ServeGauges g;
    g.queue_depth = 3;
    g.busy_workers = 1;
    g.workers = 2;
    const std::string text = m.render(g);
    CHECK(text.find("amxqa_http_requests_total{route=\"/v1/answer\",status=\"200\"} 2\n") != std::string::npos);
    CHECK(text.find("amxqa_http_requests_total{route=\"other\",status=\"404\"} 1\n") != std::string::npos);
    CHECK(text.find("amxqa_answer_duration_seconds_bucket{le=\"0.0005\"} 1\n") != std::string::npos);
    CHECK(text.find("amxqa_answer_duration_seconds_bucket{le=\"0.5\"} 2\n") != std::string::npos);
    CHECK(text.find("amxqa_answer_duration_seconds_bucket{le=\"+Inf\"} 3\n") != std::string::npos);
    CHECK(text.find("amxqa_answer_duration_seconds_count 3\n") != std::string::npos);
    CHECK(text.find("amxqa_abstentions_total 1\n") != std::string::npos);
    CHECK(text.find("amxqa_queue_depth 3\n") != std::string::npos);
    CHECK(text.find("amxqa_busy_workers 1\n") != std::string::npos);
    CHECK(text.find("# TYPE amxqa_answer_duration_seconds histogram\n") != std::string::npos);
    CHECK(route_of("/v1/answer") == Route::kAnswer);
    CHECK(route_of("/v1/answer/") == Route::kOther);
    CHECK(route_of("/") == Route::kPage);
    CHECK(route_of("/ui/app.js") == Route::kPage);
    CHECK(route_of("/uix") == Route::kOther);
    m.count_reply(Route::kPage, 200);
    CHECK(m.render(g).find("amxqa_http_requests_total{route=\"page\",status=\"200\"} 1\n") != std::string::npos);
  }
}
