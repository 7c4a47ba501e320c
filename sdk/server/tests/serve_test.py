#!/usr/bin/env python3
"""CTest sdk_serve.integration: `amxqa serve` over loopback with http.client.

    serve_test.py AMXQA MODEL PASSAGE_FILE

Starts the server on a free port (--port 0; the port is read from its stderr), waits for
/health, then checks: /health and /v1/model; answers (offsets into the context, score in 0..1,
at most top_k candidates, distinct, the first the answer) and that concurrent requests from several client threads
get the same answers as one at a time; every bad-input class with its status and JSON error
body; the page at GET / and its files with their strict headers, nothing else of it
served, and none of it with --no-ui; a soak of SOAK requests with the server's VmRSS flat within 1 MiB after warm-up; a
request in flight when SIGTERM arrives is finished; exit code 0 on SIGTERM and on SIGINT.
The model is random: only properties are checked, never an answer's text.
"""
import http.client
import json
import os
import signal
import socket
import sys
import threading
import time

from checks import check, finish
from serve_client import Server, read_all, request, test_args

SOAK = int(os.environ.get("AMXQA_SERVE_SOAK", "10000"))
RSS_CHECK = os.environ.get("AMXQA_SERVE_RSS_CHECK", "1") != "0"  # off under sanitizers (quarantine)
WARMUP = min(1000, SOAK // 2)
RSS_SLACK_KB = 1024
MAX_BODY = 65536  # Server's defaults: --max-body-bytes, --max-passage-tokens
MAX_PASSAGE_TOKENS = 512


def check_answer(name, reply, context, top_k=1):
    status, a = reply
    check(status == 200, "%s: status %s %r" % (name, status, a))
    if status != 200:
        return
    keys = {"answer", "score", "start", "end", "byte_start", "byte_end", "no_answer", "no_answer_margin",
            "no_answer_threshold", "windows", "window", "candidates"}
    check(set(a) == keys, "%s: keys %s" % (name, sorted(a)))
    check(0.0 <= a["score"] <= 1.0, "%s: score %r" % (name, a["score"]))
    check(len(a["candidates"]) <= top_k, "%s: %d candidates for top_k %d" % (name, len(a["candidates"]), top_k))
    spans = [(c["start"], c["end"]) for c in a["candidates"]]
    check(len(set(spans)) == len(spans), "%s: repeated candidate spans %r" % (name, spans))
    for c in a["candidates"]:
        check(0.0 <= c["score"] <= 1.0, "%s: candidate score %r" % (name, c["score"]))
        check_span("%s: candidate" % name, c, context)
    if not a["no_answer"]:
        check_span(name, a, context)
        check(a["candidates"] and a["candidates"][0]["answer"] == a["answer"], "%s: candidate != answer" % name)


def check_span(name, span, context):
    """start/end index the context's characters, byte_start/byte_end its UTF-8 bytes."""
    by_chars = context[span["start"]:span["end"]]
    by_bytes = context.encode()[span["byte_start"]:span["byte_end"]].decode("utf-8", "replace")
    check(by_chars == span["answer"] and by_bytes == span["answer"],
          "%s: context[%d:%d] = %r, bytes [%d:%d] = %r, answer %r" % (name, span["start"], span["end"], by_chars,
                                                                    span["byte_start"], span["byte_end"], by_bytes,
                                                                    span["answer"]))


def check_info(port):
    status, h = request(port, "GET", "/health")
    check(status == 200 and h.get("status") == "ok" and h.get("workers") == 2, "/health: %s %r" % (status, h))
    status, m = request(port, "GET", "/v1/model")
    check(status == 200, "/v1/model status %s" % status)
    for key in ("version", "arch", "calibrated", "no_answer_threshold", "recipe", "scores"):
        check(key in m, "/v1/model lacks %r: %r" % (key, m))
    check(isinstance(m.get("arch"), dict) and "layer_kinds" in m["arch"], "/v1/model arch: %r" % m.get("arch"))


def check_answers(port, passage):
    questions = ["Who designed the present tower?", "When was it completed?", "Where is the lighthouse?",
                 "What was rebuilt on Plymouth Hoe?", "How far is it from Plymouth?"]
    expected = {}
    for q in questions:
        reply = request(port, "POST", "/v1/answer", {"question": q, "context": passage})
        check_answer("answer %r" % q, reply, passage)
        expected[q] = reply[1]
    reply = request(port, "POST", "/v1/answer", {"question": questions[0], "context": passage, "top_k": 5})
    check_answer("top_k 5", reply, passage, top_k=5)
    reply = request(port, "POST", "/v1/answer", {"question": questions[0], "context": passage, "threshold": -1000.0})
    check(reply[0] == 200 and reply[1]["no_answer"], "threshold -1000 abstains: %r" % (reply,))
    reply = request(port, "POST", "/v1/answer", {"question": questions[0], "context": passage})
    check(reply[1] == expected[questions[0]], "a per-request threshold leaked into the next request")

    # Several client threads at once: each answer equals the one-at-a-time answer.
    mismatches = []

    def client(k):
        for i in range(25):
            q = questions[(k + i) % len(questions)]
            got = request(port, "POST", "/v1/answer", {"question": q, "context": passage})
            if got != (200, expected[q]):
                mismatches.append((q, got))

    threads = [threading.Thread(target=client, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    check(not mismatches, "concurrent answers differ from sequential ones: %r" % mismatches[:3])


def check_bad_inputs(port, passage):
    q = "Who designed the present tower?"
    cases = [
        ("truncated JSON", '{"question": "x", "context": ', 400, "malformed_json"),
        ("not JSON", "hello", 400, "malformed_json"),
        ("not an object", "[1, 2]", 400, "malformed_json"),
        ("no fields", {}, 422, "missing_field"),
        ("no context", {"question": q}, 422, "missing_field"),
        ("no question", {"context": passage}, 422, "missing_field"),
        ("empty question", {"question": "", "context": passage}, 422, "empty_field"),
        ("empty context", {"question": q, "context": ""}, 422, "empty_field"),
        ("question a number", {"question": 7, "context": passage}, 422, "wrong_type"),
        ("context a list", {"question": q, "context": [passage]}, 422, "wrong_type"),
        ("top_k a string", {"question": q, "context": passage, "top_k": "2"}, 422, "wrong_type"),
        ("top_k 0", {"question": q, "context": passage, "top_k": 0}, 422, "invalid_field"),
        ("threshold a string", {"question": q, "context": passage, "threshold": "high"}, 422, "wrong_type"),
        ("body over --max-body-bytes", {"question": q, "context": "x" * (MAX_BODY + 100)}, 413, "body_too_large"),
        ("context over --max-passage-tokens", {"question": q, "context": "word " * (4 * MAX_PASSAGE_TOKENS)}, 422,
         "passage_too_long"),
    ]
    for name, body, status, code in cases:
        got_status, got = request(port, "POST", "/v1/answer", body)
        err = got.get("error", {}) if isinstance(got, dict) else {}
        ok = got_status == status and err.get("code") == code and isinstance(err.get("message"), str) and err["message"]
        check(ok, "%s: expected %d %s, got %d %r" % (name, status, code, got_status, got))
        if code == "passage_too_long":
            check("--max-passage-tokens" in err.get("message", ""), "%s: message does not name --max-passage-tokens" % name)
    status, got = request(port, "GET", "/v2/nothing")
    check(status == 404 and got.get("error", {}).get("code") == "not_found", "unknown route: %d %r" % (status, got))


def check_page(port):
    """GET / and the page's own files, with the strict headers; nothing else of ui/."""
    html = None
    for path, kind in [("/", "text/html"), ("/ui/app.js", "text/javascript"), ("/ui/app.css", "text/css"),
                       ("/ui/lighthouse.txt", "text/plain")]:
        status, headers, body = request(port, "GET", path, raw=True)
        check(status == 200 and headers.get("content-type", "").startswith(kind), "page %s: %d %r" % (path, status, headers))
        check(headers.get("content-security-policy", "").startswith("default-src 'self'"), "page %s: CSP %r" % (path, headers))
        check(headers.get("x-content-type-options") == "nosniff", "page %s: no nosniff" % path)
        check(headers.get("referrer-policy") == "no-referrer", "page %s: no Referrer-Policy" % path)
        html = html or body
    check(b'<script src="/ui/app.js"' in html, "page: the HTML does not load /ui/app.js")
    for path in ["/ui/", "/ui/nope.js", "/index.html", "/ui/../ui/app.js"]:
        status, _, _ = request(port, "GET", path, raw=True)
        check(status == 404, "page: %s answered %d, not 404" % (path, status))
    status, headers, _ = request(port, "GET", "/health", raw=True)
    check("content-security-policy" not in headers, "the API's replies changed: %r" % headers)


def soak(server, passage):
    """SOAK requests (1 in 10 malformed) on keep-alive connections from two threads."""
    # One sentence: the soak is about memory and the HTTP path, and a short context keeps
    # 10,000 answers well under a minute on one core.
    sentence = passage.split(". ")[1] + "."
    good = json.dumps({"question": "Who designed the present tower?", "context": sentence})
    bad = '{"question": 3, "context": "x"}'
    samples = []
    lock = threading.Lock()
    done = [0]
    errors = []

    def client():
        conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
        while True:
            with lock:
                if done[0] >= SOAK:
                    break
                done[0] += 1
                n = done[0]
            body = bad if n % 10 == 0 else good
            try:
                status, _ = request(server.port, "POST", "/v1/answer", body, conn)
            except (http.client.HTTPException, OSError) as e:  # the server closed an idle keep-alive
                conn.close()
                conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
                status, _ = request(server.port, "POST", "/v1/answer", body, conn)
            if status != (422 if body is bad else 200):
                errors.append(status)
            if n >= WARMUP and n % 500 == 0:
                samples.append(server.rss_kb())
        conn.close()

    t0 = time.time()
    threads = [threading.Thread(target=client) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    secs = time.time() - t0
    check(not errors, "soak: %d unexpected statuses, first %r" % (len(errors), errors[:5]))
    spread = max(samples) - min(samples)
    print("soak: %d requests in %.1f s (%.0f/s); VmRSS after warm-up %d..%d kB (spread %d kB)" %
          (SOAK, secs, SOAK / secs, min(samples), max(samples), spread), flush=True)
    check(spread <= RSS_SLACK_KB or not RSS_CHECK, "soak: VmRSS grew by %d kB after warm-up (limit %d)" % (spread, RSS_SLACK_KB))


def drain(server, passage):
    """A request half-sent when SIGTERM arrives is still read, answered and closed cleanly."""
    body = json.dumps({"question": "Who designed the present tower?", "context": passage}).encode()
    head = ("POST /v1/answer HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            "Content-Length: %d\r\n\r\n" % len(body)).encode()
    s = socket.create_connection(("127.0.0.1", server.port), timeout=30)
    s.sendall(head + body[:len(body) // 2])
    time.sleep(0.3)  # accepted and being read by a worker
    server.proc.send_signal(signal.SIGTERM)
    time.sleep(0.3)
    check(server.proc.poll() is None, "drain: the server exited with a request in flight")
    s.sendall(body[len(body) // 2:])
    reply = read_all(s)
    s.close()
    check(reply.startswith(b"HTTP/1.1 200"), "drain: in-flight request got %r" % reply[:80])
    check(b'"answer"' in reply, "drain: no answer body in %r" % reply[-200:])


def main(argv):
    cli, model, passage = test_args(argv, __doc__)
    server = Server(cli, model)
    try:
        check_info(server.port)
        check_answers(server.port, passage)
        check_bad_inputs(server.port, passage)
        check_page(server.port)
        soak(server, passage)
        drain(server, passage)
        rc = server.proc.wait(timeout=20)
        check(rc == 0, "SIGTERM: exit code %r" % rc)
    finally:
        if server.proc.poll() is None:
            server.proc.kill()
    server = Server(cli, model, "--no-ui")
    status, _, _ = request(server.port, "GET", "/", raw=True)
    check(status == 404, "--no-ui: GET / answered %d, not 404" % status)
    rc = server.stop(signal.SIGINT)
    check(rc == 0, "SIGINT: exit code %r" % rc)
    return finish("serve_test")


if __name__ == "__main__":
    sys.exit(main(sys.argv))
