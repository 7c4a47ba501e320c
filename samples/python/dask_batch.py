#!/usr/bin/env python3
"""Batch question answering on a Dask cluster with the amxqa Python package.

    python3 samples/python/dask_batch.py --input in.jsonl --output out.jsonl --local-workers 4
    python3 samples/python/dask_batch.py --input in.jsonl --output out.jsonl --scheduler tcp://host:8786

Input: one JSON request a line, as `amxqa batch` reads it: "id", "question", "context" and
the optional "top_k", "threshold", "max_answer_tokens", "windows", "window_overlap",
"whole_words" (README "Request fields"; amxqa.request parses and answers them).
Output, in input order, one line per input line (blank lines are skipped), as `amxqa batch`
writes it:
  {"id", "answer", "score", "start", "end", "byte_start", "byte_end", "no_answer",
   "no_answer_margin", "no_answer_threshold", "windows", "window", "candidates"}
      start/end: characters of the context; byte_start/byte_end: its UTF-8 bytes
  {"id", "error": {"code", "message", "line"}}   a bad line, or a failed task
Nothing is dropped: a line that cannot be parsed or answered, or whose task failed on
every retry, still gets its output line, with "error". The run reports how many lines
failed and exits 1 when any did (0 when every line was answered).

Each worker process opens the model and one session once, in a worker plugin
(libamxqa sessions are single-threaded, so a lock serialises a worker's threads; give
workers one thread each, as --local-workers does). Every worker needs the amxqa package
importable and libamxqa loadable (PYTHONPATH / AMXQA_LIBRARY, or an installed prefix),
and --model readable at the same path (without --model: each worker's amxqa.default_model()).
"""
import argparse
import collections
import json
import sys
import threading

from dask.distributed import Client, LocalCluster, WorkerPlugin, get_worker

PLUGIN = "amxqa-session"


def error_record(rec_id, number, code, message):
    """The error line `amxqa batch` writes (sdk/server/qa_response.h batch_error_line)."""
    return {"id": rec_id, "error": {"code": code, "message": "line %d: %s" % (number, message), "line": number}}


def parse_line(number, text):
    """(request, None) for a good line, else (None, error output). Runs on workers and,
    for a failed task, on the client."""
    from amxqa import request
    try:
        obj = json.loads(text)
    except ValueError as e:
        return None, error_record(None, number, "malformed_json", str(e))
    try:
        return request.parse(obj, require_id=True), None
    except request.RequestError as e:
        rec_id = obj.get("id") if isinstance(obj, dict) and isinstance(obj.get("id"), (str, int)) else None
        return None, error_record(rec_id, number, e.code, e.message)


class SessionPlugin(WorkerPlugin):
    """Dask worker plugin: one model and one session per worker process, opened at setup.
    A failure to open is kept and reported on every line the worker is given."""

    def __init__(self, model, options):
        self.model_path, self.options = model, options

    def setup(self, worker):
        self.lock = threading.Lock()
        self.session, self.error = None, None
        try:
            import amxqa
            path = self.model_path or amxqa.default_model()
            if not path:
                raise ValueError("no --model and no installed default model on this worker")
            self.session = amxqa.Model(path).session(**self.options)
        except Exception as e:  # reported per line, so the run still finishes
            self.error = "worker cannot open the model: %s: %s" % (type(e).__name__, e)

    def teardown(self, worker):
        if self.session is not None:
            self.session.close()

    def answer(self, number, req):
        if self.error:
            return error_record(req.get("id"), number, "internal", self.error)
        from amxqa import request
        try:
            with self.lock:
                out = request.answer(self.session, req)
        except request.RequestError as e:  # e.g. passage_too_long
            return error_record(req.get("id"), number, e.code, e.message)
        except Exception as e:  # e.g. text that is not valid Unicode
            return error_record(req.get("id"), number, "internal", "%s: %s" % (type(e).__name__, e))
        return dict({"id": req.get("id")}, **out)


def answer_chunk(lines):
    """A task: [(line number, text)] -> output records, in order, on this worker's session."""
    plugin = get_worker().plugins[PLUGIN]
    out = []
    for number, text in lines:
        rec, error = parse_line(number, text)
        out.append(error if error else plugin.answer(number, rec))
    return out


def chunks(stream, size):
    """Non-blank input lines as lists of (1-based line number, text)."""
    chunk = []
    for number, text in enumerate(stream, 1):
        if text.strip():
            chunk.append((number, text))
            if len(chunk) == size:
                yield chunk
                chunk = []
    if chunk:
        yield chunk


def failed_chunk(lines, exc):
    """The output for a chunk whose task failed: every line gets an error, with its id."""
    out = []
    for number, text in lines:
        rec, error = parse_line(number, text)
        out.append(error or error_record(rec.get("id"), number, "internal", "task failed: %s" % exc))
    return out


def run(client, args, out):
    """Answers every line; returns (lines written, error lines)."""
    from amxqa.request import MAX_TOP_K
    # The same session options as `amxqa batch`'s flags; a line's own fields apply to it alone.
    options = {"max_passage_tokens": args.max_passage_tokens, "max_answer_tokens": args.max_answer_tokens,
               "windows": args.windows, "window_overlap": args.window_overlap,
               "whole_words": not args.split_words, "max_top_k": MAX_TOP_K}
    if args.threshold_file:
        options["threshold_file"] = args.threshold_file
    if args.threshold is not None:
        options["threshold"] = args.threshold
    client.register_worker_plugin(SessionPlugin(args.model, options), name=PLUGIN)
    # A bounded window of tasks in flight: memory stays flat for any input size, and
    # results are written in input order as they complete.
    window = 4 * max(1, len(client.scheduler_info()["workers"]))
    pending = collections.deque()
    written, errors = 0, 0

    def write_oldest():
        lines, future = pending.popleft()
        try:
            records = future.result()
        except Exception as e:  # the worker died or the task raised on every retry
            records = failed_chunk(lines, e)
        for r in records:
            out.write(json.dumps(r, ensure_ascii=False) + "\n")
        return len(records), sum(1 for r in records if "error" in r)

    with open(args.input, encoding="utf-8", errors="replace") as stream:
        for lines in chunks(stream, args.chunk_size):
            pending.append((lines, client.submit(answer_chunk, lines, retries=2, pure=False)))
            if len(pending) >= window:
                n, e = write_oldest()
                written, errors = written + n, errors + e
    while pending:
        n, e = write_oldest()
        written, errors = written + n, errors + e
    return written, errors


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    where = p.add_mutually_exclusive_group(required=True)
    where.add_argument("--scheduler", help="an existing cluster's scheduler, e.g. tcp://host:8786")
    where.add_argument("--local-workers", type=int, metavar="N", help="start a local cluster of N worker processes")
    p.add_argument("--input", required=True, help="JSONL: {id, question, context} a line")
    p.add_argument("--output", required=True, help="JSONL answers, in input order ('-': stdout)")
    p.add_argument("--model", help="model file, at this path on every worker (default: each worker's "
                                    "amxqa.default_model())")
    # The session flags of `amxqa batch`, with its names and defaults.
    p.add_argument("--max-passage-tokens", type=int, default=4096)
    p.add_argument("--max-answer-tokens", type=int, default=32)
    p.add_argument("--windows", action="store_true", help="answer a longer context in overlapping windows")
    p.add_argument("--window-overlap", type=int, default=0)
    p.add_argument("--split-words", action="store_true", help="let a span start or end inside a word")
    thresholds = p.add_mutually_exclusive_group()
    thresholds.add_argument("--threshold", type=float, help="no-answer threshold (default: the model's)")
    thresholds.add_argument("--threshold-file", help="no-answer threshold from `amxqa calibrate --out`")
    p.add_argument("--chunk-size", type=int, default=32, help="lines per task (default 32)")
    args = p.parse_args(argv)
    if args.local_workers is not None and args.local_workers < 1:
        p.error("--local-workers must be at least 1")

    if args.scheduler:
        cluster, client = None, Client(args.scheduler)
    else:
        # One thread per worker process: each process answers with its one session.
        cluster = LocalCluster(n_workers=args.local_workers, threads_per_worker=1, processes=True,
                               dashboard_address=None)
        client = Client(cluster)
    out = sys.stdout if args.output == "-" else open(args.output, "w", encoding="utf-8")
    try:
        n, errors = run(client, args, out)
    finally:
        if out is not sys.stdout:
            out.close()
        client.close()
        if cluster is not None:
            cluster.close()
    print("dask_batch: %d lines, %d answered, %d error lines, on %s" % (
        n, n - errors, errors, args.scheduler or "%d local workers" % args.local_workers), file=sys.stderr)
    return 1 if errors else 0


if __name__ == "__main__":  # required: local worker processes re-import this file
    sys.exit(main(sys.argv[1:]))
