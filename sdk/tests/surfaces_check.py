#!/usr/bin/env python3
"""CTest sdk_surfaces.integration: one JSONL request file answered by `amxqa batch`,
`amxqa serve` (HTTP), the Python package (amxqa.request) and the Dask sample gives the
same answers, character and byte offsets, scores, candidates and errors everywhere
(README "Request fields").

    surfaces_check.py CLI MODEL SOURCE_DIR WORK_DIR [DASK_PYTHON]

The lines cover non-ASCII contexts (offsets in characters differ from bytes), long
contexts answered in windows and refused without them, forced abstentions, top_k,
max_answer_tokens, whole_words, a misspelt field and a mistyped one. Every surface
runs with the same session flags (--max-passage-tokens 160). The Python package is
imported from SOURCE_DIR/sdk/python with $AMXQA_LIBRARY set by CTest. The Dask
sample runs when DASK_PYTHON (a python3 that imports dask.distributed) is given and
must exit 1 reporting its error-line count; otherwise it is skipped, and says so.
"""
import json
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request

TOKENS = "160"
LONG = ("The Eddystone Lighthouse stands on the Eddystone Rocks, fourteen kilometres south of Rame Head. "
        "The present tower was designed by James Douglass and finished in 1882; Smeaton's tower was moved "
        "to Plymouth Hoe, where it still stands. ") * 3
UNICODE = "Le phare d'Eddystone fut conçu par John Smeaton — ingénieur — en 1759. 東京タワー est plus récent. 🌊 fin."


def requests():
    lines = [
        {"id": 1, "question": "Qui a conçu le phare ?", "context": UNICODE},
        {"id": "u2", "question": "Quand ?", "context": UNICODE, "top_k": 4},
        {"id": 3, "question": "Who designed the present tower?", "context": LONG, "windows": True},
        {"id": 4, "question": "Who designed the present tower?", "context": LONG, "windows": True,
         "window_overlap": 16, "top_k": 3},
        {"id": 5, "question": "Who designed the present tower?", "context": LONG},  # too long: an error
        {"id": 6, "question": "What colour is the sky?", "context": UNICODE, "threshold": -1e30},  # abstains
        {"id": 7, "question": "Where was Smeaton's tower moved?", "context": LONG[:200], "top_k": 2,
         "max_answer_tokens": 3, "whole_words": False},
        {"id": 8, "question": "When?", "context": UNICODE, "threshold": 1e38},
        {"id": 9, "question": "When?", "context": UNICODE, "qestion": "misspelt"},  # unknown field
        {"id": 10, "question": "When?", "context": UNICODE, "top_k": "3"},  # wrong type
        {"id": 11, "question": "When?", "context": UNICODE, "max_answer_tokens": 33},  # over the sessions'
        {"id": 1, "question": "Again, the same id?", "context": UNICODE},
    ]
    return [json.dumps(r, ensure_ascii=False) for r in lines]


def fail(msg):
    print("surfaces_check: FAIL: " + msg, file=sys.stderr)
    sys.exit(1)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def strip_line_prefix(record):
    """An error as HTTP reports it: batch's message starts "line N: " and has "line"."""
    if "error" in record:
        e = dict(record["error"])
        e.pop("line", None)
        e["message"] = e["message"].split(": ", 1)[1]
        return {"error": e}
    return {k: v for k, v in record.items() if k != "id"}


def batch(cli, model, work, lines):
    path = os.path.join(work, "in.jsonl")
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    p = subprocess.run([cli, "batch", "--model", model, "--input", path, "--max-passage-tokens", TOKENS],
                       capture_output=True, text=True)
    if p.returncode != 0:
        fail("amxqa batch exited %d: %s" % (p.returncode, p.stderr))
    out = [json.loads(line) for line in p.stdout.splitlines()]
    if len(out) != len(lines):
        fail("amxqa batch wrote %d lines for %d" % (len(out), len(lines)))
    return path, out


def http(cli, model, lines):
    port = free_port()
    server = subprocess.Popen([cli, "serve", "--model", model, "--host", "127.0.0.1", "--port", str(port),
                               "--max-passage-tokens", TOKENS], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        base = "http://127.0.0.1:%d" % port
        for _ in range(300):
            try:
                urllib.request.urlopen(base + "/health", timeout=1).read()
                break
            except OSError:
                if server.poll() is not None:
                    fail("amxqa serve exited: %s" % server.stderr.read().decode())
                time.sleep(0.05)
        out = []
        for line in lines:
            body = json.loads(line)
            body.pop("id")  # HTTP requests need no id
            req = urllib.request.Request(base + "/v1/answer", data=json.dumps(body, ensure_ascii=False).encode(),
                                         headers={"Content-Type": "application/json"})
            try:
                with urllib.request.urlopen(req, timeout=30) as r:
                    out.append((r.status, json.loads(r.read())))
            except urllib.error.HTTPError as e:
                out.append((e.code, json.loads(e.read())))
        return out
    finally:
        server.terminate()
        server.wait(timeout=30)


def python_package(model, lines):
    import amxqa
    from amxqa import request
    out = []
    with amxqa.Model(model).session(max_passage_tokens=int(TOKENS), max_top_k=request.MAX_TOP_K) as s:
        for number, line in enumerate(lines, 1):
            obj = json.loads(line)
            try:
                out.append(dict({"id": obj["id"]}, **request.answer(s, request.parse(obj, require_id=True))))
            except request.RequestError as e:
                out.append({"id": obj["id"], "error": {"code": e.code, "message": "line %d: %s" % (number, e.message),
                                                       "line": number}})
    return out


def dask(python, source, model, path, work):
    out_path = os.path.join(work, "dask.jsonl")
    p = subprocess.run([python, os.path.join(source, "samples", "python", "dask_batch.py"), "--input", path,
                        "--output", out_path, "--local-workers", "1", "--model", model,
                        "--max-passage-tokens", TOKENS], capture_output=True, text=True)
    sys.stderr.write(p.stderr[-2000:])
    if p.returncode != 1 or " 4 error lines" not in p.stderr:
        fail("the Dask sample must exit 1 and report its 4 error lines; it exited %d" % p.returncode)
    with open(out_path, encoding="utf-8") as f:
        return [json.loads(line) for line in f]


def compare(name, got, want):
    if len(got) != len(want):
        fail("%s gave %d answers for %d" % (name, len(got), len(want)))
    for i, (g, w) in enumerate(zip(got, want), 1):
        if g != w:
            fail("%s line %d differs from amxqa batch:\n  %s\n  %s" % (name, i, json.dumps(g, ensure_ascii=False),
                                                                      json.dumps(w, ensure_ascii=False)))
    print("%s: %d lines identical to amxqa batch" % (name, len(got)))


def main(argv):
    cli, model, source, work = argv[:4]
    dask_python = argv[4] if len(argv) > 4 else ""
    os.makedirs(work, exist_ok=True)
    lines = requests()
    path, want = batch(cli, model, work, lines)

    # The lines mean what they were written for.
    by_id = [(r["id"], r.get("error", {}).get("code")) for r in want]
    expect_errors = {4: "passage_too_long", 8: "unknown_field", 9: "wrong_type", 10: "invalid_field"}
    for i, (rid, code) in enumerate(by_id):
        if code != expect_errors.get(i):
            fail("line %d: error %r, expected %r: %s" % (i + 1, code, expect_errors.get(i), want[i]))
    if "--max-passage-tokens" not in want[4]["error"]["message"] or '"windows"' not in want[4]["error"]["message"]:
        fail("passage_too_long must name \"windows\" and --max-passage-tokens: %s" % want[4])
    if '"qestion"' not in want[8]["error"]["message"]:
        fail("unknown_field must name the field: %s" % want[8])
    if not want[5]["no_answer"] or want[5]["candidates"]:
        fail("threshold -1e30 must abstain: %s" % want[5])
    if want[0]["no_answer"] or want[7]["no_answer"]:
        fail("lines 1 and 8 (threshold 1e38) must answer: %s / %s" % (want[0], want[7]))
    for line, r in zip(lines, want):
        if "error" in r or r["no_answer"]:
            continue
        ctx = json.loads(line)["context"]
        for span in [r] + r["candidates"]:
            if ctx[span["start"]:span["end"]] != span["answer"] or span["answer"] == "":
                fail("start/end are not the answer's characters: %s" % span)
            if ctx.encode()[span["byte_start"]:span["byte_end"]].decode() != span["answer"]:
                fail("byte_start/byte_end are not the answer's bytes: %s" % span)
    if not any(r.get("start") != r.get("byte_start") for r in want if "error" not in r):
        fail("no answer lies after a non-ASCII character: the test does not tell characters from bytes")
    if not any(len(r.get("candidates", [])) > 1 for r in want):
        fail("no line gave more than one candidate: top_k is not exercised")

    served = http(cli, model, lines)
    for (status, body), w in zip(served, want):
        if ("error" in w) != (status != 200) or ("error" in w and status != 422):
            fail("HTTP status %d for %s" % (status, w))
    compare("amxqa serve", [b for _, b in served], [strip_line_prefix(w) for w in want])
    compare("Python amxqa.request", python_package(model, lines), want)
    if dask_python:
        compare("Dask sample", dask(dask_python, source, model, path, work), want)
    else:
        print("surfaces_check: Dask sample SKIPPED: no python3 here imports dask.distributed")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
