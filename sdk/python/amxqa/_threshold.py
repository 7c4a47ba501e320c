"""Reading the no-answer threshold that `amxqa calibrate --out FILE` writes.

The file is JSON: {"best": {"threshold": <float>, ...}, "steps": [...]}; only
best.threshold is used. Anything else is a ValueError naming the file and what
is wrong, so a bad file never silently leaves the model's threshold in place.
"""
import json
import math


def read_threshold_file(path):
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except json.JSONDecodeError as e:
        raise ValueError("%s: not a calibration file (invalid JSON: %s)" % (path, e)) from None
    best = doc.get("best") if isinstance(doc, dict) else None
    if not isinstance(best, dict):
        raise ValueError('%s: not a calibration file (no "best" object)' % path)
    value = best.get("threshold")
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError('%s: "best.threshold" must be a number, not %r' % (path, value))
    if math.isnan(value) or value == -math.inf:
        raise ValueError('%s: "best.threshold" must not be NaN or -Infinity' % path)
    return float(value)
