#!/usr/bin/env python3
"""CTest sdk_batch.integration: `amxqa batch` JSONL in, JSONL out.

    batch_test.py AMXQA MODEL PASSAGE_FILE WORK_DIR

Checks: one output line per non-blank input line, in input order, with the input's id; good
lines have exactly the documented keys and a span of the context; bad lines (malformed JSON,
a missing, mistyped or unknown field, no id, a context over --max-passage-tokens) give an
error line with the input line number; 1 and 2 threads write the same file; --resume after an
interrupted run (a cut-off last line) ends with the same file as one full run, a repeated id
included; --threshold;
stdin/stdout.
The model is random: only properties are checked, never an answer's text.
"""
import json
import os
import shutil
import subprocess
import sys

from checks import check, finish


def make_input(passage):
    q = "Who designed the present tower?"
    lines, expect = [], []  # expect: (id, error code or None) per non-blank line, with its line number

    def add(text, id_, code):
        lines.append(text)
        if text.strip():
            expect.append((len(lines), id_, code))

    for i in range(12):
        add(json.dumps({"id": "q%d" % i, "question": q if i % 2 else "Where is it?", "context": passage}), "q%d" % i, None)
        if i == 2:
            add('{"id": "broken", "question": ', None, "malformed_json")
        if i == 4:
            add(json.dumps({"id": "noq", "context": passage}), "noq", "missing_field")
            add("", None, None)  # blank: skipped, no output line
        if i == 6:
            add(json.dumps({"question": q, "context": passage}), None, "missing_field")  # no id
            add(json.dumps({"id": 77, "question": q, "context": 5}), 77, "wrong_type")
        if i == 8:
            add(json.dumps({"id": "long", "question": q, "context": "word " * 2048}), "long", "passage_too_long")
            add(json.dumps({"id": 9000, "question": q, "context": passage, "threshold": -1000}), 9000, None)
        if i == 9:  # a repeated id: --resume must answer it again, not take it for the first q1
            add(json.dumps({"id": "q1", "question": q, "context": passage, "top_k": 3}), "q1", None)
            add(json.dumps({"id": "typo", "question": q, "context": passage, "top-k": 3}), "typo", "unknown_field")
    return "\n".join(lines) + "\n", expect


def run(cli, *args, stdin=None):
    p = subprocess.run([cli, "batch"] + list(args), input=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True)
    return p.returncode, p.stdout, p.stderr


def check_output(name, text, expect, passage):
    out = [json.loads(line) for line in text.splitlines()]
    check(len(out) == len(expect), "%s: %d output lines for %d input lines" % (name, len(out), len(expect)))
    for got, (line_no, id_, code) in zip(out, expect):
        check(got.get("id") == id_, "%s: line %d: id %r, expected %r" % (name, line_no, got.get("id"), id_))
        if code is None:
            keys = {"id", "answer", "score", "start", "end", "byte_start", "byte_end", "no_answer",
                    "no_answer_margin", "no_answer_threshold", "windows", "window", "candidates"}
            check(set(got) == keys, "%s: line %d: keys %s" % (name, line_no, sorted(got)))
            if not got.get("no_answer", True):
                span = passage.encode()[got["byte_start"]:got["byte_end"]].decode("utf-8", "replace")
                check(span == got["answer"], "%s: line %d: span %r != answer %r" % (name, line_no, span, got["answer"]))
                check(passage[got["start"]:got["end"]] == got["answer"],
                      "%s: line %d: start/end are not the answer's characters" % (name, line_no))
            check(0.0 <= got.get("score", -1) <= 1.0, "%s: line %d: score %r" % (name, line_no, got.get("score")))
        else:
            err = got.get("error", {})
            check(err.get("code") == code and err.get("line") == line_no and
                  err.get("message", "").startswith("line %d: " % line_no),
                  "%s: line %d: expected error %s, got %r" % (name, line_no, code, got))
    abstained = [o for o in out if o.get("id") == 9000]
    check(abstained and abstained[0].get("no_answer") is True, "%s: threshold -1000 did not abstain" % name)
    return out


def main(argv):
    if len(argv) != 5:
        print(__doc__, file=sys.stderr)
        return 2
    cli, model, passage_file, work = argv[1:]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    passage = open(passage_file, encoding="utf-8").read().strip()
    text, expect = make_input(passage)
    src = os.path.join(work, "in.jsonl")
    with open(src, "w", encoding="utf-8") as f:
        f.write(text)
    common = ["--model", model, "--max-passage-tokens", "512", "--input", src]

    full = os.path.join(work, "out2.jsonl")
    rc, _, err = run(cli, *common, "--threads", "2", "--out", full)
    check(rc == 0, "2 threads: exit %d: %s" % (rc, err))
    full_text = open(full, encoding="utf-8").read()
    check_output("2 threads", full_text, expect, passage)
    check("questions/s" in err, "no progress line with questions/s on stderr: %r" % err)

    one = os.path.join(work, "out1.jsonl")
    rc, _, err = run(cli, *common, "--threads", "1", "--out", one)
    check(rc == 0 and open(one, encoding="utf-8").read() == full_text, "1 thread and 2 threads differ (%d %s)" % (rc, err))

    # An interrupted run: `keep` lines written, the next one cut mid-way. Both include the
    # malformed line's id-less error, which --resume recognises by its line number.
    lines = full_text.splitlines(True)
    for keep in (6, 11, 14):
        part = os.path.join(work, "resume%d.jsonl" % keep)
        with open(part, "w", encoding="utf-8") as f:
            f.write("".join(lines[:keep]) + lines[keep][: len(lines[keep]) // 2])
        rc, _, err = run(cli, *common, "--threads", "2", "--out", part, "--resume")
        check(rc == 0, "--resume after %d lines: exit %d: %s" % (keep, rc, err))
        check(("%d skipped" % keep) in err, "--resume after %d lines: stderr %r" % (keep, err))
        check(open(part, encoding="utf-8").read() == full_text,
              "--resume after %d lines: the file differs from one full run" % keep)
    rc, _, err = run(cli, *common, "--out", full, "--resume")
    check(rc == 0 and open(full, encoding="utf-8").read() == full_text and "0 answered" in err,
          "--resume of a finished run changed it: %d %s" % (rc, err))

    rc, out, err = run(cli, *common, "--threshold", "-1000")
    answered = [json.loads(line) for line in out.splitlines() if "error" not in json.loads(line)]
    check(rc == 0 and answered and all(a["no_answer"] for a in answered),
          "--threshold -1000: every answered line abstains (%d %s)" % (rc, err))
    rc, out, err = run(cli, "--model", model, "--max-passage-tokens", "512", stdin=text)
    check(rc == 0 and out == full_text, "stdin to stdout differs from the file run: %d %s" % (rc, err))
    rc, _, err = run(cli, "--model", model, "--resume")
    check(rc == 2 and "--resume needs --out" in err, "--resume without --out: %d %r" % (rc, err))
    rc, _, err = run(cli, "--model", model, "--threads", "0")
    check(rc == 2, "--threads 0: exit %d" % rc)

    return finish("batch_test")


if __name__ == "__main__":
    sys.exit(main(sys.argv))
