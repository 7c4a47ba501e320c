#!/usr/bin/env python3
"""Throughput of `amxqa batch` at 1 and 2 threads in one run, and their ratio (target >= 1.8).

    bench/batch_scaling.py [--amxqa build/bin/amxqa] [--model sdk/models/default.amxqa]
                           [--data ../shared/data/squad/dev-v1.1-open.json.gz] [--questions 400]
                           [--cpus A,B] [--min-ratio 1.8]

Writes a JSONL of --questions SQuAD questions (the first ones of --data; with --data sample,
or when the file is missing, the sample passage with a few questions, repeated), then runs `amxqa batch --threads 1`
pinned to the first CPU and `--threads 2` pinned to both, and prints questions/s for each
and the ratio as a table and as one JSON line. Exit 1 when the ratio is under --min-ratio.

Each thread has its own session, so the ratio measures what the cores give, not locking.
It means something only when both CPUs are otherwise idle: the script samples /proc/stat
first and says so when they are not (e.g. a training job on one of them). Not a CTest:
timings do not belong in tests (sdk_batch_scaling.integration only runs it once, small,
without the ratio check, so the script keeps working).
"""
import argparse
import gzip
import json
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SAMPLE_QUESTIONS = ["Who designed the present tower?", "When was the present tower completed?",
                    "Where are the Eddystone Rocks?", "What was rebuilt on Plymouth Hoe?"]


def squad_questions(path, n):
    with (gzip.open(path, "rt", encoding="utf-8") if path.endswith(".gz") else open(path, encoding="utf-8")) as f:
        data = json.load(f)["data"]
    out = []
    for article in data:
        for para in article["paragraphs"]:
            for qa in para["qas"]:
                out.append({"id": qa["id"], "question": qa["question"], "context": para["context"]})
                if len(out) == n:
                    return out
    return out


def sample_questions(n):
    with open(os.path.join(ROOT, "samples", "data", "lighthouse.txt"), encoding="utf-8") as f:
        context = f.read().strip()
    return [{"id": i, "question": SAMPLE_QUESTIONS[i % len(SAMPLE_QUESTIONS)], "context": context} for i in range(n)]


def busy_fraction(cpus, seconds=1.0):
    """Fraction of time each CPU was busy over `seconds` (from /proc/stat)."""
    def snapshot():
        rows = {}
        with open("/proc/stat") as f:
            for line in f:
                parts = line.split()
                if parts[0].startswith("cpu") and parts[0] != "cpu":
                    values = [int(v) for v in parts[1:]]
                    rows[int(parts[0][3:])] = (sum(values), values[3] + values[4])  # total, idle + iowait
        return rows
    a = snapshot()
    time.sleep(seconds)
    b = snapshot()
    out = {}
    for c in cpus:
        total, idle = b[c][0] - a[c][0], b[c][1] - a[c][1]
        out[c] = 1.0 - idle / total if total else 0.0
    return out


def run_batch(amxqa, model, jsonl, threads, cpus, work):
    out = os.path.join(work, "out-%d.jsonl" % threads)
    cmd = ["taskset", "-c", ",".join(str(c) for c in cpus[:threads]), amxqa, "batch", "--model", model,
           "--input", jsonl, "--out", out, "--threads", str(threads)]
    t0 = time.monotonic()
    p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    secs = time.monotonic() - t0
    if p.returncode != 0:
        sys.exit("batch_scaling: %s failed (%d): %s" % (" ".join(cmd), p.returncode, p.stderr[-500:]))
    with open(out, encoding="utf-8") as f:
        lines = sum(1 for _ in f)
    return lines, secs


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--amxqa", default=os.path.join(ROOT, "build", "bin", "amxqa"))
    ap.add_argument("--model", default=os.path.join(ROOT, "sdk", "models", "default.amxqa"))
    ap.add_argument("--data", default=os.path.join(ROOT, "..", "shared", "data", "squad", "dev-v1.1-open.json.gz"))
    ap.add_argument("--questions", type=int, default=400)
    ap.add_argument("--cpus", default="auto",
                    help="two CPU numbers, 1 thread runs on the first (default: the first two this process may use)")
    ap.add_argument("--min-ratio", type=float, default=1.8, help="0 reports without checking")
    args = ap.parse_args()
    if args.cpus == "auto":
        allowed = sorted(os.sched_getaffinity(0))
        cpus = allowed[:2] if len(allowed) >= 2 else allowed * 2
    else:
        cpus = [int(c) for c in args.cpus.split(",")]
    if len(cpus) != 2:
        sys.exit("batch_scaling: --cpus needs two CPU numbers")
    if cpus[0] == cpus[1]:
        print("batch_scaling: warning: one CPU for both runs; the ratio cannot reach 2", file=sys.stderr)

    use_squad = args.data != "sample" and os.path.exists(args.data)
    questions = squad_questions(args.data, args.questions) if use_squad else sample_questions(args.questions)
    source = args.data if use_squad else "samples/data/lighthouse.txt"
    busy = busy_fraction(cpus)
    for c, frac in busy.items():
        if frac > 0.10:
            print("batch_scaling: warning: CPU %d was %.0f%% busy before the run; the ratio is not clean" %
                  (c, 100 * frac), file=sys.stderr)
    with tempfile.TemporaryDirectory(prefix="amxqa-batch-scaling-") as work:
        jsonl = os.path.join(work, "questions.jsonl")
        with open(jsonl, "w", encoding="utf-8") as f:
            for q in questions:
                f.write(json.dumps(q) + "\n")
        results = {}
        for threads in (1, 2):
            lines, secs = run_batch(args.amxqa, args.model, jsonl, threads, cpus, work)
            results[threads] = lines / secs
            print("%d thread%s: %d questions in %.2f s: %.1f questions/s" %
                  (threads, "" if threads == 1 else "s", lines, secs, results[threads]))
    ratio = results[2] / results[1]
    print("ratio 2/1 threads: %.2f (target >= %.1f)" % (ratio, args.min_ratio))
    print(json.dumps({"questions": len(questions), "source": source, "model": args.model,
                      "qps_1": round(results[1], 2), "qps_2": round(results[2], 2), "ratio": round(ratio, 3),
                      "cpus": cpus, "busy_before": {str(c): round(f, 3) for c, f in busy.items()}}))
    return 1 if args.min_ratio > 0 and ratio < args.min_ratio else 0


if __name__ == "__main__":
    sys.exit(main())
