"""What serve_test.py and serve_load_test.py share: starting `amxqa serve` on a free port
(--port 0; the port is read from its stderr), one request over http.client, and reading one
HTTP response off a raw socket (for the tests that send bytes no client library would)."""
import http.client
import json
import os
import re
import socket
import subprocess
import sys
import threading
import time


def test_args(argv, doc):
    """AMXQA MODEL PASSAGE_FILE from argv -> (cli, model, passage text); usage and exit 2 otherwise."""
    if len(argv) != 4:
        print(doc, file=sys.stderr)
        sys.exit(2)
    cli, model, passage_file = argv[1:]
    return cli, model, open(passage_file, encoding="utf-8").read().strip()


class Server:
    def __init__(self, cli, model, *extra, env=None, threads=2, max_body=65536, max_passage_tokens=512):
        cmd = [cli, "serve", "--model", model, "--port", "0", "--threads", str(threads),
               "--max-body-bytes", str(max_body), "--max-passage-tokens", str(max_passage_tokens)] + list(extra)
        self.proc = subprocess.Popen(cmd, stderr=subprocess.PIPE, text=True, env=dict(os.environ, **(env or {})))
        self.log = []
        line = self.proc.stderr.readline()
        self.log.append(line)
        m = re.search(r"listening on http://127\.0\.0\.1:(\d+)", line)
        if not m:
            self.proc.kill()
            sys.exit("serve test: no 'listening on' line; stderr: %r" % (line + self.proc.stderr.read()))
        self.port = int(m.group(1))
        threading.Thread(target=lambda: self.log.extend(self.proc.stderr), daemon=True).start()
        deadline = time.time() + 20
        while time.time() < deadline:
            try:
                if request(self.port, "GET", "/health")[0] == 200:
                    return
            except OSError:
                time.sleep(0.05)
        sys.exit("serve test: /health never answered")

    def rss_kb(self):
        with open("/proc/%d/status" % self.proc.pid) as f:
            return int(re.search(r"VmRSS:\s+(\d+) kB", f.read()).group(1))

    def stop(self, sig):
        self.proc.send_signal(sig)
        try:
            return self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            return "hung"

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


def request(port, method, path, body=None, conn=None, headers=None, raw=False):
    """One request; a fresh connection (closed after) unless conn is given.
    -> (status, json), or (status, headers, body bytes) when raw."""
    c = conn or http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    h = {"Content-Type": "application/json"}
    if conn is None:
        h["Connection"] = "close"
    h.update(headers or {})
    if isinstance(body, dict):
        body = json.dumps(body)
    c.request(method, path, body=body, headers=h)
    r = c.getresponse()
    data = r.read()
    if conn is None:
        c.close()
    if raw:
        return r.status, {k.lower(): v for k, v in r.getheaders()}, data
    return r.status, json.loads(data)


def answer_request_bytes(question, context, extra_headers=""):
    body = json.dumps({"question": question, "context": context}).encode()
    head = ("POST /v1/answer HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n%s"
            "Content-Length: %d\r\n\r\n" % (extra_headers, len(body))).encode()
    return head + body


def read_response(sock, buf=b""):
    """One response from sock (buf: bytes already read). -> (status, headers, body, rest);
    status None when the connection closed before a whole response."""
    while b"\r\n\r\n" not in buf:
        chunk = sock.recv(65536)
        if not chunk:
            return None, {}, buf, b""
        buf += chunk
    head, rest = buf.split(b"\r\n\r\n", 1)
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split(" ")[1])
    headers = {}
    for line in lines[1:]:
        k, _, v = line.partition(":")
        headers[k.strip().lower()] = v.strip()
    n = int(headers.get("content-length", "0"))
    while len(rest) < n:
        chunk = sock.recv(65536)
        if not chunk:
            return None, headers, rest, b""
        rest += chunk
    return status, headers, rest[:n], rest[n:]


def read_all(sock):
    """Every byte until the server closes sock."""
    data = b""
    while True:
        chunk = sock.recv(65536)
        if not chunk:
            return data
        data += chunk


def closed_by_server(sock):
    """True when the server has closed sock (EOF or reset), reading and discarding what comes."""
    try:
        while True:
            if not sock.recv(65536):
                return True
    except ConnectionResetError:
        return True
    except socket.timeout:
        return False
