#!/usr/bin/env python3
"""CTest sample_dask_batch.integration: runs dask_batch.py on a local cluster of two
worker processes and checks that every input line comes back, in order.

    dask_batch_check.py MODEL SQUAD_JSON WORK_DIR

The input is every question of SQUAD_JSON (samples/cpp/lighthouse_squad.json), repeated
so that both workers get tasks, plus bad lines (invalid JSON, a non-object, a missing
context, an empty question) that must come back with "error"; since some lines fail,
dask_batch.py must exit 1 and say how many. Prints "SKIPPED: ..."
(the test's skip pattern) when dask.distributed is not importable.
"""
import json
import os
import pathlib
import subprocess
import sys

HERE = pathlib.Path(__file__).resolve().parent
BAD = ['{"id": "bad-json", "question": ', '["not", "an", "object"]', '{"id": "no-context", "question": "Who?"}',
       '{"id": "empty-question", "question": "", "context": "Some text."}']


def make_input(squad_path, path, repeats=5):
    with open(squad_path, encoding="utf-8") as f:
        squad = json.load(f)
    good = [{"question": qa["question"], "context": para["context"], "id": qa["id"]}
            for article in squad["data"] for para in article["paragraphs"] for qa in para["qas"]]
    lines = []
    for r in range(repeats):
        lines += [json.dumps(dict(rec, id="%s#%d" % (rec["id"], r)), ensure_ascii=False) for rec in good]
        lines.append(BAD[r % len(BAD)] if r < len(BAD) else "")
    lines += BAD[repeats:]  # every bad kind at least once
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n\n")
    return [ln for ln in lines if ln.strip()]


def main(model, squad_path, work_dir):
    try:
        import dask.distributed  # noqa: F401
    except ImportError as e:
        print("SKIPPED: dask.distributed is not importable by %s (%s; Debian: python3-distributed)" % (sys.executable, e))
        return 0
    work = pathlib.Path(work_dir)
    work.mkdir(parents=True, exist_ok=True)
    inp, outp = work / "questions.jsonl", work / "answers.jsonl"
    lines = make_input(squad_path, inp)
    run = subprocess.run([sys.executable, str(HERE / "dask_batch.py"), "--local-workers", "2", "--model", model,
                          "--input", str(inp), "--output", str(outp), "--chunk-size", "4"],
                         timeout=240, capture_output=True, text=True)
    print(run.stdout + run.stderr, end="")
    with open(outp, encoding="utf-8") as f:
        out = [json.loads(ln) for ln in f]

    failures = []
    n_errors = sum("error" in r for r in out)
    # Bad lines are in the input on purpose: the sample must report them and exit 1.
    if run.returncode != 1:
        failures.append("dask_batch.py exited %d with %d error lines (want 1)" % (run.returncode, n_errors))
    if "%d error" % n_errors not in run.stdout + run.stderr:
        failures.append("dask_batch.py did not report its %d error lines" % n_errors)
    if len(out) != len(lines):
        failures.append("%d output lines for %d input lines" % (len(out), len(lines)))
    for sent, got in zip(lines, out):
        try:
            rec = json.loads(sent)
        except ValueError:
            rec = None
        good = isinstance(rec, dict) and rec.get("context") and rec.get("question")
        want_id = rec.get("id") if isinstance(rec, dict) else None
        if got.get("id") != want_id:
            failures.append("out of order or lost: expected id %r, got %r" % (want_id, got))
        elif good and not {"id", "answer", "score", "start", "end", "byte_start", "byte_end", "no_answer"} <= set(got):
            failures.append("answer line has keys %s: %r" % (sorted(got), got))
        elif good and got["answer"] != rec["context"][got["start"]:got["end"]]:
            failures.append("answer is not context[start:end]: %r" % got)
        elif not good and "error" not in got:
            failures.append("bad line %r got no error: %r" % (sent, got))
    for f in failures:
        print("FAIL", f)
    print("%d lines, %d answered, %d errors" % (len(out), sum("answer" in r for r in out),
                                                 sum("error" in r for r in out)))
    return 1 if failures else 0


if __name__ == "__main__":
    if len(sys.argv) != 4:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    sys.exit(main(*sys.argv[1:]))
