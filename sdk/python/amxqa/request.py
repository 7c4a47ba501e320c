"""The JSON request and answer of `amxqa serve` and `amxqa batch`, for Python callers.

The same fields, defaults, errors and answer JSON as sdk/server/qa_request.h and
qa_response.h (README "Request fields"), so a Python worker (samples/python/dask_batch.py)
answers a JSONL line exactly as `amxqa batch` does:

    session = amxqa.Model(path).session(max_top_k=amxqa.request.MAX_TOP_K)
    req = amxqa.request.parse(json.loads(line), require_id=True)   # RequestError
    out = amxqa.request.answer(session, req)                      # RequestError
    # out: {"answer", "score", "start", "end", "byte_start", "byte_end", "no_answer",
    #       "no_answer_margin", "no_answer_threshold", "windows", "window", "candidates"}

start/end are characters of the context, byte_start/byte_end its UTF-8 bytes.
"""
import math

from .api import Error

# Every field a request may have (qa_request.h kRequestFields), in the README table's order.
FIELDS = ("id", "question", "context", "top_k", "threshold", "max_answer_tokens", "windows", "window_overlap",
          "whole_words")
MAX_TOP_K = 100  # qa_request.h kMaxTopK
_SESSION_FIELDS = ("max_answer_tokens", "windows", "window_overlap", "whole_words")
_COUNT_RANGES = {"top_k": (1, MAX_TOP_K), "max_answer_tokens": (1, 1 << 16), "window_overlap": (0, 65535)}
_TYPE_NAMES = {bool: "boolean", int: "number", float: "number", str: "string", list: "array", dict: "object"}


class RequestError(ValueError):
    """A request that cannot be answered: `code` as the HTTP error body's
    ("unknown_field", "invalid_field", "passage_too_long", ...), `message` for people."""

    def __init__(self, code, message):
        self.code, self.message = code, message
        super().__init__("%s: %s" % (code, message))


def _type_name(v):
    return "null" if v is None else _TYPE_NAMES.get(type(v), type(v).__name__)


def _field_error(code, field, what):
    return RequestError(code, '"%s" %s' % (field, what))


def _wrong_type(field, expected, v):
    return _field_error("wrong_type", field, "must be %s, not %s" % (expected, _type_name(v)))


def _is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def parse(obj, require_id=False):
    """A validated request dict from a parsed JSON object; raises RequestError with the
    code and message qa_request.cpp gives. Absent optional fields are left out."""
    if not isinstance(obj, dict):
        raise RequestError("malformed_json", "expected a JSON object, got %s" % _type_name(obj))
    req = {}
    if obj.get("id") is None:
        if require_id:
            raise _field_error("missing_field", "id", "is missing")
    elif not (isinstance(obj["id"], str) or _is_int(obj["id"])):
        raise _wrong_type("id", "a string or an integer", obj["id"])
    elif obj["id"] == "":
        raise _field_error("empty_field", "id", "is empty")
    else:
        req["id"] = obj["id"]
    for key in obj:
        if key not in FIELDS:
            raise RequestError("unknown_field", '"%s" is not a request field (the fields: %s)'
                               % (key, ", ".join(FIELDS)))
    for key in ("question", "context"):
        if key not in obj:
            raise _field_error("missing_field", key, "is missing")
        if not isinstance(obj[key], str):
            raise _wrong_type(key, "a string", obj[key])
        if not obj[key]:
            raise _field_error("empty_field", key, "is empty")
        req[key] = obj[key]
    for key in ("top_k", "threshold", "max_answer_tokens", "windows", "window_overlap", "whole_words"):
        v = obj.get(key)
        if v is None:
            continue
        if key in _COUNT_RANGES:
            if not _is_int(v):
                raise _wrong_type(key, "an integer", v)
            lo, hi = _COUNT_RANGES[key]
            if not lo <= v <= hi:
                raise _field_error("invalid_field", key, "must be between %d and %d" % (lo, hi))
        elif key == "threshold":
            if not isinstance(v, (int, float)) or isinstance(v, bool):
                raise _wrong_type(key, "a number", v)
            if math.isnan(v) or v < -3.4028234663852886e38:
                raise _field_error("invalid_field", key, "must not be below -3.4e38")
        elif not isinstance(v, bool):
            raise _wrong_type(key, "true or false", v)
        req[key] = v
    return req


def _span(answer):
    return {"answer": answer.text, "score": answer.probability, "start": answer.start, "end": answer.end,
            "byte_start": answer.byte_start, "byte_end": answer.byte_end}


def answer(session, req):
    """Answers a parse()d request on `session` (made with max_top_k=MAX_TOP_K for any top_k)
    with the request's threshold and session options for this call only; returns the answer
    JSON dict of `amxqa serve`. Raises RequestError (a passage over the session's tokens
    without "windows" is passage_too_long)."""
    options = {k: req[k] for k in _SESSION_FIELDS if k in req}
    if options.get("max_answer_tokens", 0) > session._opt.max_answer_tokens:
        raise _field_error("invalid_field", "max_answer_tokens", "is %d; the sessions were made for at most %d "
                           "(--max-answer-tokens)" % (options["max_answer_tokens"], session._opt.max_answer_tokens))
    overlap = options.get("window_overlap", session._opt.window_overlap)
    if options.get("windows", bool(session._opt.windows)) and overlap >= session._opt.max_passage_tokens:
        raise _field_error("invalid_field", "window_overlap", "is %d; it must be below the %d tokens of a window "
                           "(--max-passage-tokens)" % (overlap, session._opt.max_passage_tokens))
    try:
        session.set_options(**options)
        if "threshold" in req:
            session.set_threshold(req["threshold"])
        top_k = req.get("top_k", 1)
        if top_k > 1:
            spans = session.answer_topk(req["question"], req["context"], top_k)
            out = dict(_span(spans[0])) if spans else {}
            candidates = [_span(s) for s in spans]
        else:
            a = session.answer(req["question"], req["context"])
            out = {} if a.abstained else _span(a)
            candidates = [] if a.abstained else [_span(a)]
    except Error as e:
        if e.status_name == "AMXQA_ERR_PASSAGE_TOO_LONG":
            raise RequestError("passage_too_long", '"context" needs more than the %d passage tokens a session '
                               'holds: send "windows": true to answer it in windows, or raise '
                               '--max-passage-tokens' % session._opt.max_passage_tokens) from None
        if e.status_name == "AMXQA_ERR_QUESTION_TOO_LONG":
            raise RequestError("question_too_long", '"question" needs more tokens than a session allows') from None
        raise RequestError("internal", str(e)) from None
    finally:
        session.set_threshold(None)
        session.set_options()
    if not out:  # no answer: an empty span at 0, and the probability of "no answer"
        out = {"answer": "", "score": session.last_probability, "start": 0, "end": 0, "byte_start": 0,
               "byte_end": 0}
    info = session._info  # the call's amxqa_answer_info
    out["score"] = session.last_probability
    out["no_answer"] = not candidates
    out["no_answer_margin"] = _finite_or_none(info.no_answer_margin)
    out["no_answer_threshold"] = _finite_or_none(info.no_answer_threshold)
    out["windows"] = info.windows
    out["window"] = info.window
    out["candidates"] = candidates
    return out


def _finite_or_none(v):
    """JSON has no infinity (a threshold of 1e39 is +inf as a float): None, as qa_response.cpp."""
    return v if math.isfinite(v) else None
