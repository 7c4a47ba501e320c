#!/usr/bin/env python3
"""CTest sdk_serve_hostile.integration: `amxqa serve` under load and hostile clients.

    serve_hostile_test.py AMXQA MODEL PASSAGE_FILE

Over loopback, each against its own server:
  stalled   --threads 1 (the default): 50 clients that send half a request, 20 that send half
            their headers, 20 silent and 10 idle keep-alive connections stay open while valid
            requests are each answered within 1 s (the issue's bound; nothing tighter is timed).
  timeouts  --header-timeout / --body-timeout 1: a client dripping its headers, and one that
            stops mid-body, get 408 and are closed; --idle-timeout 1 closes an idle connection.
  queue     --threads 1 --max-queue 1: a burst of concurrent requests behind a long one gets
            only 200s and 503s, at least one 503, each with Retry-After and a JSON error.
  wire      malformed, oversized and unusual HTTP (bad request lines, huge headers, conflicting
            lengths, chunked bodies, pipelining, Expect: 100-continue, HEAD, HTTP/1.0, 405, 505).
  access    --api-key (and $AMXQA_API_KEY) and --cors-origin: 401 without the bearer key on
            /v1/*, /health and /metrics open; OPTIONS preflights and Access-Control-* headers.
  metrics   GET /metrics parses as Prometheus text: requests by status, the latency
            histogram (cumulative, +Inf = count), abstentions, queue depth and busy workers.
  drain     --threads 2: 12 requests sent at once, SIGTERM at once: every one is answered,
            an idle keep-alive connection is closed, new connections are refused, exit 0.
The model is random: only properties are checked, never an answer's text.
"""
import json
import re
import signal
import socket
import sys
import time

from checks import check, finish
from serve_client import (Server, answer_request_bytes, closed_by_server, read_all, read_response, request,
                          test_args)

QUESTION = "Who designed the present tower?"


def connect(port, timeout=10):
    return socket.create_connection(("127.0.0.1", port), timeout=timeout)


def exchange(port, data, timeout=10):
    """Sends data on a fresh connection, reads one response. -> (status, headers, body)."""
    s = connect(port, timeout)
    try:
        s.sendall(data)
        status, headers, body, _ = read_response(s)
        return status, headers, body
    finally:
        s.close()


def error_code(body):
    try:
        return json.loads(body)["error"]["code"]
    except (ValueError, KeyError, TypeError):
        return None


def check_stalled(cli, model, passage):
    """Slow and idle clients hold no worker: valid requests behind them are answered."""
    key = "k3y-for-the-stall-test"
    server = Server(cli, model, threads=1, env={"AMXQA_API_KEY": key})
    auth = {"Authorization": "Bearer " + key}
    held = []
    try:
        whole = answer_request_bytes(QUESTION, passage, "Authorization: Bearer %s\r\n" % key)
        for i in range(50):  # headers and half the body
            s = connect(server.port)
            s.sendall(whole[:len(whole) - 200])
            held.append(s)
        for i in range(20):  # half the headers
            s = connect(server.port)
            s.sendall(whole[:40])
            held.append(s)
        for i in range(20):  # connected, silent
            held.append(connect(server.port))
        for i in range(10):  # answered once, then idle on keep-alive
            s = connect(server.port)
            s.sendall(answer_request_bytes(QUESTION, passage, "Authorization: Bearer %s\r\n" % key))
            status, _, _, _ = read_response(s)
            check(status == 200, "stalled: keep-alive client's first request: %r" % status)
            held.append(s)
        time.sleep(0.2)
        slowest = 0.0
        for i in range(20):
            t0 = time.time()
            status, a = request(server.port, "POST", "/v1/answer", {"question": QUESTION, "context": passage},
                                headers=auth)
            slowest = max(slowest, time.time() - t0)
            check(status == 200 and "answer" in a, "stalled: valid request %d got %r %r" % (i, status, a))
        print("stalled: 100 stalled or idle connections open; 20 valid requests, slowest %.3f s" % slowest)
        check(slowest < 1.0, "stalled: a valid request took %.2f s behind stalled clients (limit 1 s)" % slowest)
        status, _ = request(server.port, "POST", "/v1/answer", {"question": QUESTION, "context": passage})
        check(status == 401, "$AMXQA_API_KEY: a request without the key got %r" % status)
    finally:
        for s in held:
            s.close()
        rc = server.stop(signal.SIGTERM)
        check(rc == 0, "stalled: exit code %r on SIGTERM" % rc)


def check_timeouts(cli, model, passage):
    server = Server(cli, model, "--header-timeout", "1", "--body-timeout", "1", "--idle-timeout", "1", threads=1)
    try:
        # Headers a byte at a time, more slowly than the header timeout allows in total.
        s = connect(server.port)
        head = b"GET /health HTTP/1.1\r\nHost: x\r\nX-Slow: " + b"a" * 100
        got_408 = False
        for b in head:
            try:
                s.sendall(bytes([b]))
            except OSError:
                break
            time.sleep(0.05)
            s.settimeout(0)
            try:
                data = s.recv(65536)
                got_408 = data.startswith(b"HTTP/1.1 408")
                break
            except BlockingIOError:
                pass
            finally:
                s.settimeout(10)
        if not got_408:
            status, _, body, _ = read_response(s)
            got_408 = status == 408 and error_code(body) == "request_timeout"
        check(got_408, "header timeout: a dripping client was not answered 408")
        s.close()
        # A body that stops halfway.
        whole = answer_request_bytes(QUESTION, passage)
        s = connect(server.port)
        s.sendall(whole[:-50])
        status, _, body, _ = read_response(s)
        check(status == 408 and error_code(body) == "request_timeout", "body timeout: got %r %r" % (status, body[:80]))
        check(closed_by_server(s), "body timeout: the connection stays open")
        s.close()
        # Idle keep-alive.
        s = connect(server.port)
        s.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n")
        status, _, _, _ = read_response(s)
        check(status == 200, "idle timeout: first request %r" % status)
        check(closed_by_server(s), "idle timeout: an idle connection stays open")
        s.close()
        status, metrics = request(server.port, "GET", "/metrics", raw=True)[0::2]
        text = metrics.decode()
        for kind in ("header", "body", "idle"):
            m = re.search(r'amxqa_http_timeouts_total\{kind="%s"\} (\d+)' % kind, text)
            check(m and int(m.group(1)) >= 1, "metrics: no %s timeout counted" % kind)
    finally:
        server.kill()


def check_queue(cli, model, passage):
    """One worker, one queue slot: a burst of requests behind a long one gets 503s."""
    server = Server(cli, model, "--max-queue", "1", threads=1, max_body=1 << 20, max_passage_tokens=4096)
    long_context = " ".join([passage] * 12)
    try:
        statuses = []
        retry_after_ok = True
        for attempt in range(5):
            socks = [connect(server.port) for _ in range(33)]
            socks[0].sendall(answer_request_bytes(QUESTION, long_context))  # keeps the worker busy
            for s in socks[1:]:
                s.sendall(answer_request_bytes(QUESTION, passage))
            for s in socks:
                status, headers, body, _ = read_response(s)
                statuses.append(status)
                if status == 503:
                    retry_after_ok &= headers.get("retry-after", "").isdigit() and error_code(body) == "overloaded"
                s.close()
            if 503 in statuses:
                break
        print("queue: statuses %s" % {s: statuses.count(s) for s in set(statuses)})
        check(set(statuses) <= {200, 503}, "queue: unexpected statuses %r" % sorted(set(statuses), key=str))
        check(503 in statuses and 200 in statuses, "queue: a full queue never gave 503: %r" % set(statuses))
        check(retry_after_ok, "queue: a 503 without Retry-After or the overloaded error code")
    finally:
        server.kill()


def check_wire(server, passage):
    port = server.port
    cases = [
        ("garbage request line", b"hello there\r\n\r\n", 400),
        ("no version", b"GET /health\r\n\r\n", 400),
        ("HTTP/2.0", b"GET /health HTTP/2.0\r\n\r\n", 505),
        ("target not a path", b"GET health HTTP/1.1\r\n\r\n", 400),
        ("folded header", b"GET /health HTTP/1.1\r\nA: b\r\n c\r\n\r\n", 400),
        ("header without colon", b"GET /health HTTP/1.1\r\nno colon here\r\n\r\n", 400),
        ("huge header", b"GET /health HTTP/1.1\r\nX: " + b"a" * 70000 + b"\r\n\r\n", 431),
        ("huge request line", b"GET /" + b"a" * 70000 + b" HTTP/1.1\r\n\r\n", 414),
        ("too many headers", b"GET /health HTTP/1.1\r\n" + b"X: 1\r\n" * 500 + b"\r\n", 431),
        ("Content-Length not a number", b"POST /v1/answer HTTP/1.1\r\nContent-Length: 1x\r\n\r\n", 400),
        ("Content-Length overflow", b"POST /v1/answer HTTP/1.1\r\nContent-Length: 99999999999999999999999\r\n\r\n",
         413),
        ("Content-Length over the limit", b"POST /v1/answer HTTP/1.1\r\nContent-Length: 70000\r\n\r\n", 413),
        ("conflicting lengths", b"POST /v1/answer HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n", 400),
        ("length and chunked", b"POST /v1/answer HTTP/1.1\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n",
         400),
        ("unknown transfer coding", b"POST /v1/answer HTTP/1.1\r\nTransfer-Encoding: gzip\r\n\r\n", 501),
        ("bad chunk size", b"POST /v1/answer HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", 400),
        ("chunk over the limit", b"POST /v1/answer HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nffffffffffffffffff\r\n",
         413),
        ("unknown expectation", b"POST /v1/answer HTTP/1.1\r\nExpect: magic\r\nContent-Length: 2\r\n\r\n{}", 417),
        ("NUL in a header", b"GET /health HTTP/1.1\r\nX: a\x00b\r\n\r\n", 400),
        ("no route", b"GET /nowhere HTTP/1.1\r\n\r\n", 404),
        ("wrong method", b"DELETE /v1/answer HTTP/1.1\r\n\r\n", 405),
        ("GET the answer route", b"GET /v1/answer HTTP/1.1\r\n\r\n", 405),
        ("empty body", b"POST /v1/answer HTTP/1.1\r\nContent-Length: 0\r\n\r\n", 400),
    ]
    for name, data, want in cases:
        try:
            status, headers, body = exchange(port, data)
        except OSError as e:
            status, headers, body = "error %s" % e, {}, b""
        code = error_code(body)
        check(status == want and code is not None, "wire %s: expected %d with a JSON error, got %r %r" %
              (name, want, status, body[:100]))
        if status in (400, 413, 414, 417, 431, 501, 505) and name != "empty body":  # unreadable HTTP
            check(headers.get("connection") == "close", "wire %s: %d without Connection: close" % (name, status))
    # Chunked, with an extension and a trailer.
    body = json.dumps({"question": QUESTION, "context": passage}).encode()
    chunks = b"".join(b"%x;ext=1\r\n%s\r\n" % (len(body[i:i + 100]), body[i:i + 100]) for i in range(0, len(body), 100))
    status, _, answer = exchange(port, b"POST /v1/answer HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n" + chunks +
                                 b"0\r\nX-Trailer: 1\r\n\r\n")
    check(status == 200 and b'"answer"' in answer, "wire chunked: %r %r" % (status, answer[:100]))
    # Pipelined: three requests in one write, three replies in order.
    s = connect(port)
    s.sendall(b"GET /health HTTP/1.1\r\n\r\n" + answer_request_bytes(QUESTION, passage) +
              b"GET /v1/model HTTP/1.1\r\n\r\n")
    rest = b""
    got = []
    for _ in range(3):
        status, _, reply, rest = read_response(s, rest)
        got.append((status, reply[:12]))
    s.close()
    check([g[0] for g in got] == [200, 200, 200] and got[0][1].startswith(b'{"status"') and
          got[1][1].startswith(b'{"answer"'), "wire pipelined: %r" % got)
    # Expect: 100-continue: the interim reply, then the answer.
    s = connect(port)
    whole = answer_request_bytes(QUESTION, passage, "Expect: 100-continue\r\n")
    head, payload = whole.split(b"\r\n\r\n", 1)
    s.sendall(head + b"\r\n\r\n")
    status, _, _, rest = read_response(s)
    check(status == 100, "wire expect: interim status %r" % status)
    s.sendall(payload)
    status, _, reply, _ = read_response(s, rest)
    check(status == 200 and b'"answer"' in reply, "wire expect: final %r" % status)
    s.close()
    # HEAD: headers only.
    s = connect(port)
    s.sendall(b"HEAD /health HTTP/1.1\r\nConnection: close\r\n\r\n")
    data = read_all(s)
    s.close()
    check(data.startswith(b"HTTP/1.1 200") and data.endswith(b"\r\n\r\n"), "wire HEAD: %r" % data[-40:])
    # HTTP/1.0 closes unless asked to keep alive.
    status, headers, _ = exchange(port, b"GET /health HTTP/1.0\r\n\r\n")
    check(status == 200 and headers.get("connection") == "close", "wire HTTP/1.0: %r %r" % (status, headers))
    # A client that sends a request and shuts its side still gets the answer.
    s = connect(port)
    s.sendall(answer_request_bytes(QUESTION, passage))
    s.shutdown(socket.SHUT_WR)
    status, _, reply, _ = read_response(s)
    s.close()
    check(status == 200, "wire half-close: %r" % status)
    # Still serving.
    check(request(port, "GET", "/health")[0] == 200, "wire: /health after the malformed requests")


def check_access(cli, model, passage):
    origin = "https://app.example"
    server = Server(cli, model, "--api-key", "s3cret", "--cors-origin", origin + ",https://other.example")
    try:
        port = server.port
        body = {"question": QUESTION, "context": passage}
        status, headers, data = request(port, "POST", "/v1/answer", body, raw=True)
        check(status == 401 and error_code(data) == "unauthorized" and headers.get("www-authenticate") == "Bearer",
              "auth: no key: %r %r %r" % (status, headers, data))
        for bad in ("Bearer s3cre", "Bearer s3cret2", "Basic s3cret", "s3cret", "Bearer", "Bearer  "):
            status = request(port, "POST", "/v1/answer", body, headers={"Authorization": bad})[0]
            check(status == 401, "auth: %r got %r" % (bad, status))
        for good in ("Bearer s3cret", "bearer s3cret", "BEARER   s3cret"):
            status = request(port, "POST", "/v1/answer", body, headers={"Authorization": good})[0]
            check(status == 200, "auth: %r got %r" % (good, status))
        check(request(port, "GET", "/v1/model")[0] == 401, "auth: /v1/model without a key")
        check(request(port, "GET", "/v1/nothing")[0] == 401, "auth: /v1/nothing without a key (routes are not probed)")
        check(request(port, "GET", "/health")[0] == 200, "auth: /health needs no key")
        check(request(port, "GET", "/metrics", raw=True)[0] == 200, "auth: /metrics needs no key")

        pre = {"Origin": origin, "Access-Control-Request-Method": "POST",
               "Access-Control-Request-Headers": "authorization, content-type"}
        status, headers, _ = request(port, "OPTIONS", "/v1/answer", headers=pre, raw=True)
        check(status == 204 and headers.get("access-control-allow-origin") == origin and
              "POST" in headers.get("access-control-allow-methods", "") and
              "authorization" in headers.get("access-control-allow-headers", "").lower(),
              "cors: preflight: %r %r" % (status, headers))
        status, headers, _ = request(port, "OPTIONS", "/v1/answer", headers=dict(pre, Origin="https://evil.example"),
                                     raw=True)
        check(status == 204 and "access-control-allow-origin" not in headers,
              "cors: preflight from another origin: %r %r" % (status, headers))
        status, headers, _ = request(port, "POST", "/v1/answer", body, headers={
            "Origin": origin, "Authorization": "Bearer s3cret"}, raw=True)
        check(status == 200 and headers.get("access-control-allow-origin") == origin and
              headers.get("vary") == "Origin", "cors: answer headers %r" % headers)
        status, headers, _ = request(port, "POST", "/v1/answer", body, headers={"Origin": origin}, raw=True)
        check(status == 401 and headers.get("access-control-allow-origin") == origin,
              "cors: a 401 a browser can read: %r" % headers)
        status, headers, _ = request(port, "GET", "/health", headers={"Origin": "https://evil.example"}, raw=True)
        check("access-control-allow-origin" not in headers, "cors: another origin got %r" % headers)
    finally:
        server.kill()
    # Without --cors-origin an OPTIONS still gets its Allow header, and no CORS header.
    server = Server(cli, model)
    try:
        status, headers, _ = request(server.port, "OPTIONS", "/v1/answer", headers={"Origin": origin}, raw=True)
        check(status == 204 and "POST" in headers.get("allow", "") and "access-control-allow-origin" not in headers,
              "OPTIONS without CORS: %r %r" % (status, headers))
    finally:
        server.kill()


LABEL = r'[a-zA-Z_][a-zA-Z0-9_]*="[^"\\\n]*"'
SAMPLE = re.compile(r'^(?P<name>[a-zA-Z_:][a-zA-Z0-9_:]*)(\{(?P<labels>%s(,%s)*)?\})? (?P<value>\S+)$' % (LABEL, LABEL))


def parse_metrics(text):
    """Prometheus text format 0.0.4 -> ({(name, labels): value}, {name: type}); a line that does
    not parse is a failure."""
    samples, types = {}, {}
    for line in text.splitlines():
        if not line:
            continue
        if line.startswith("# TYPE "):
            _, _, name, kind = line.split(" ", 3)
            types[name] = kind
            continue
        if line.startswith("#"):
            continue
        m = SAMPLE.match(line)
        check(m is not None, "metrics: line does not parse: %r" % line)
        if m is None:
            continue
        labels = tuple(sorted(re.findall(r'([a-zA-Z_][a-zA-Z0-9_]*)="([^"]*)"', m.group("labels") or "")))
        samples[(m.group("name"), labels)] = float(m.group("value"))
    return samples, types


def check_metrics(server, passage):
    port = server.port
    for i in range(3):
        request(port, "POST", "/v1/answer", {"question": QUESTION, "context": passage})
    request(port, "POST", "/v1/answer", {"question": QUESTION, "context": passage, "threshold": -1000.0})
    request(port, "POST", "/v1/answer", "{not json")
    status, headers, data = request(port, "GET", "/metrics", raw=True)
    check(status == 200 and headers.get("content-type", "").startswith("text/plain; version=0.0.4"),
          "metrics: %r %r" % (status, headers))
    samples, types = parse_metrics(data.decode())
    get = lambda name, **labels: samples.get((name, tuple(sorted(labels.items()))))
    check(types.get("amxqa_http_requests_total") == "counter", "metrics: requests counter type %r" % types)
    ok = get("amxqa_http_requests_total", route="/v1/answer", status="200") or 0
    check(ok >= 4, "metrics: %r answers counted, at least 4 sent" % ok)
    check((get("amxqa_http_requests_total", route="/v1/answer", status="400") or 0) >= 1, "metrics: no 400 counted")
    check(types.get("amxqa_answer_duration_seconds") == "histogram", "metrics: no latency histogram")
    buckets = sorted(((float(dict(k[1])["le"]), v) for k, v in samples.items()
                      if k[0] == "amxqa_answer_duration_seconds_bucket"), key=lambda b: b[0])
    counts = [v for _, v in buckets]
    check(len(buckets) >= 2 and buckets[-1][0] == float("inf"), "metrics: histogram lacks +Inf: %r" % buckets)
    check(counts == sorted(counts), "metrics: buckets not cumulative: %r" % counts)
    check(counts and counts[-1] == get("amxqa_answer_duration_seconds_count") and counts[-1] >= ok,
          "metrics: +Inf bucket %r, count %r" % (counts[-1:], get("amxqa_answer_duration_seconds_count")))
    check((get("amxqa_answer_duration_seconds_sum") or 0) > 0, "metrics: latency sum is 0")
    check((get("amxqa_abstentions_total") or 0) >= 1, "metrics: the threshold -1000 abstention is not counted")
    for gauge in ("amxqa_queue_depth", "amxqa_busy_workers", "amxqa_http_open_connections", "amxqa_queue_capacity"):
        check(types.get(gauge) == "gauge" and get(gauge) is not None and get(gauge) >= 0,
              "metrics: gauge %s missing" % gauge)
    check(get("amxqa_workers") == 2, "metrics: amxqa_workers %r" % get("amxqa_workers"))


def check_drain(cli, model, passage):
    """SIGTERM with requests queued: every accepted one is answered, then exit 0."""
    server = Server(cli, model, threads=2)
    idle = connect(server.port)
    idle.sendall(b"GET /health HTTP/1.1\r\n\r\n")
    check(read_response(idle)[0] == 200, "drain: keep-alive request")
    socks = [connect(server.port, timeout=30) for _ in range(12)]
    for s in socks:
        s.sendall(answer_request_bytes(QUESTION, passage))
    server.proc.send_signal(signal.SIGTERM)
    answered = 0
    for s in socks:
        try:
            status, _, body, _ = read_response(s)
        except OSError as e:
            status, body = "error %s" % e, b""
        answered += status == 200 and b'"answer"' in body
        s.close()
    check(answered == len(socks), "drain: %d of %d accepted requests answered across SIGTERM" % (answered, len(socks)))
    check(closed_by_server(idle), "drain: an idle keep-alive connection was not closed")
    idle.close()
    try:
        rc = server.proc.wait(timeout=20)
    except Exception:
        rc = "hung"
        server.kill()
    check(rc == 0, "drain: exit code %r" % rc)
    try:
        connect(server.port, timeout=2).close()
        check(False, "drain: a connection was accepted after the server exited")
    except OSError:
        pass


def main(argv):
    cli, model, passage = test_args(argv, __doc__)
    check_stalled(cli, model, passage)
    check_timeouts(cli, model, passage)
    check_queue(cli, model, passage)
    server = Server(cli, model)
    try:
        check_wire(server, passage)
        check_metrics(server, passage)
    finally:
        server.kill()
    check_access(cli, model, passage)
    check_drain(cli, model, passage)
    return finish("serve_hostile_test")


if __name__ == "__main__":
    sys.exit(main(sys.argv))
