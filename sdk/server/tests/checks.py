"""The failure bookkeeping serve_test.py and batch_test.py share: check() records and
prints a failed property and carries on, so one run reports every failure; finish() gives
the exit code."""
import sys

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL " + what, flush=True)


def finish(name):
    if failures:
        print("%s: %d failures" % (name, len(failures)), file=sys.stderr)
        return 1
    print("%s: all checks passed" % name)
    return 0
