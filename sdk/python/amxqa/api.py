"""Model, Session and Answer: the Python face of libamxqa.

Python owns every buffer the library uses: the model file is mmap'd, the
model handle and the session live in ctypes buffers aligned to 64 bytes by
offsetting, and the answer buffer is reused between calls.
"""
import codecs
import ctypes
import math
import mmap
import os

from . import _native
from ._threshold import read_threshold_file

_lib = None
_lib_path = None
_PASSAGE_TOO_LONG = 6  # AMXQA_ERR_PASSAGE_TOO_LONG


def _library():
    global _lib, _lib_path
    if _lib is None:
        _lib, _lib_path = _native.load()
    return _lib


def library_path():
    """The path libamxqa was loaded from."""
    _library()
    return _lib_path


class Error(Exception):
    """A libamxqa failure: `status` is the amxqa_status value, `status_name` its
    name (e.g. "AMXQA_ERR_MODEL_VERSION"), `message` the library's message."""

    def __init__(self, status, message):
        self.status = int(status)
        self.status_name = _library().amxqa_status_name(self.status).decode()
        self.message = message
        super().__init__("%s: %s" % (self.status_name, message))


def _check(status, message_source=None):
    if status != 0:
        msg = _library().amxqa_last_error(message_source)
        raise Error(status, (msg or b"").decode("utf-8", "replace") or "failed")


def _bytes(s, what):
    if isinstance(s, str):
        return s.encode("utf-8")
    if isinstance(s, (bytes, bytearray, memoryview)):
        return bytes(s)
    raise TypeError("%s must be str or bytes, not %s" % (what, type(s).__name__))


def _threshold_value(threshold):
    value = float(threshold)
    if math.isnan(value) or value == -math.inf:
        raise ValueError("threshold must be a number above -inf, not %r" % threshold)
    return value


def _isa_value(isa):
    if isinstance(isa, int):
        return isa
    try:
        return _native.ISA_NAMES.index(isa)
    except ValueError:
        raise ValueError("isa must be one of %s" % ", ".join(_native.ISA_NAMES)) from None


def _isa_name(value):
    return _library().amxqa_isa_name(value).decode()


def _struct_dict(s):
    out = {}
    for name, _ in s._fields_:
        if name in ("reserved", "struct_size"):
            continue
        v = getattr(s, name)
        out[name] = v.decode("utf-8", "replace") if isinstance(v, bytes) else v
    return out


def version():
    """The version of the loaded libamxqa ("0.2.0"); amxqa.__version__ is the package's."""
    return _library().amxqa_version().decode()


def cpu_info():
    """The CPU report (amxqa_cpu_query) as a dict; `best` is an ISA name."""
    info = _native.CpuInfo()
    _check(_library().amxqa_cpu_query(ctypes.byref(info)))
    d = _struct_dict(info)
    d["best"] = _isa_name(info.best)
    for k in ("has_avx2_fma", "has_avx512", "has_avx512_bf16", "has_avx512_vnni", "has_amx",
              "has_neon", "has_neon_dotprod"):
        d[k] = bool(d[k])
    return d


class _MappedFile:
    """A private, read-only-in-practice mapping of a whole file (page aligned)."""

    def __init__(self, path):
        with open(path, "rb") as f:
            size = os.fstat(f.fileno()).st_size
            # ACCESS_COPY: ctypes needs a writable buffer to take its address;
            # pages stay shared with the file unless written, and we never write.
            self.map = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_COPY) if size else None
        self.size = size
        if self.map is not None:
            self._view = (ctypes.c_char * size).from_buffer(self.map)
            self.address = ctypes.addressof(self._view)
        else:  # an empty file: a valid aligned pointer with length 0
            self._view, self.address = _native.aligned_buffer(0)


def verify(path):
    """Runs every validation check on a model file.

    Returns a list of (status_name, message) for each failed check ([] when clean).
    """
    lib = _library()
    f = _MappedFile(path)
    failures = []

    def report(_user, status, message):
        failures.append((lib.amxqa_status_name(status).decode(), (message or b"").decode("utf-8", "replace")))

    callback = _native.REPORT_FN(report)
    lib.amxqa_model_verify(f.address, f.size, callback, None)
    return failures


class Model:
    """An open, verified model. The file is mmap'd and stays mapped while this
    Model or any of its sessions is alive."""

    def __init__(self, path):
        lib = _library()
        self.path = os.fspath(path)
        self._file = _MappedFile(self.path)
        self._storage, storage_addr = _native.aligned_buffer(_native.MODEL_STORAGE_BYTES)
        handle = ctypes.c_void_p()
        _check(lib.amxqa_model_open(self._file.address, self._file.size, storage_addr, ctypes.byref(handle)))
        self._handle = handle

    @property
    def info(self):
        """Architecture and provenance (amxqa_model_info) as a dict."""
        info = _native.ModelInfo()
        _check(_library().amxqa_model_get_info(self._handle, ctypes.byref(info)))
        return _struct_dict(info)

    @property
    def scores(self):
        """Provenance scores recorded at training, e.g. {"squad_dev_em": 61.2}."""
        lib = _library()
        n = lib.amxqa_model_scores(self._handle, None, None, 0)
        names = (ctypes.c_char_p * max(n, 1))()
        values = (ctypes.c_float * max(n, 1))()
        n = lib.amxqa_model_scores(self._handle, names, values, n)
        return {names[i].decode("utf-8", "replace"): values[i] for i in range(n)}

    def tokenize(self, text):
        """Token ids of `text` (str or bytes) under the model's tokenizer."""
        lib = _library()
        data = _bytes(text, "text")
        n = lib.amxqa_tokenize(self._handle, data, len(data), None, 0)
        ids = (ctypes.c_uint32 * max(n, 1))()
        n = lib.amxqa_tokenize(self._handle, data, len(data), ids, n)
        return list(ids[:n])

    def token_bytes(self, token_id):
        length = ctypes.c_size_t()
        addr = _library().amxqa_token_bytes(self._handle, token_id, ctypes.byref(length))
        return ctypes.string_at(addr, length.value) if addr else None

    def session(self, **options):
        """A session for this model; its memory is allocated here, once. Takes Session's keywords."""
        return Session(self, **options)


def _char_offsets(utf8, byte_start, byte_end):
    """The byte span [byte_start, byte_end) of valid UTF-8 as character offsets. An edge
    inside a character moves inward, so the character span is whole characters."""
    start = len(utf8[:byte_start].decode("utf-8", "ignore"))  # drops a character cut at byte_start...
    if byte_start < len(utf8) and utf8[byte_start] & 0xC0 == 0x80:
        start += 1  # ...which is then skipped, not included
    end = len(utf8[:byte_end].decode("utf-8", "ignore"))  # whole characters before byte_end
    return start, max(start, end)


class Answer:
    """One answer. `text` is the answer (str; `raw` holds its exact bytes).

    `byte_start`, `byte_end`: the span in the UTF-8 passage bytes. `start`, `end`: the
    same span in the passage as it was passed: characters for a str passage, and then
    `text` is passage[start:end] (a span edge inside a character leaves that character
    out); bytes for a bytes passage. `span` is (start, end).
    `probability` is the model's probability of the answer it gave (of "no answer" when
    it abstained); it abstained iff `no_answer_margin` > `no_answer_threshold`.
    """

    __slots__ = ("text", "raw", "start", "end", "byte_start", "byte_end", "abstained", "mean_logprob",
                 "probability", "no_answer_margin", "no_answer_threshold", "prefill_ms", "decode_ms", "isa",
                 "question_tokens", "passage_tokens", "answer_tokens", "stopped_on_eot")

    def __init__(self, raw, info, passage=None, utf8=None):
        """`passage`, `utf8`: a str passage and its UTF-8 bytes (offsets in characters)."""
        self.raw = raw
        self.text = raw.decode("utf-8", "replace")
        self.byte_start, self.byte_end = info.span_begin, info.span_end
        self.start, self.end = self.byte_start, self.byte_end
        if passage is not None and self.byte_end > self.byte_start:
            self.start, self.end = _char_offsets(utf8, self.byte_start, self.byte_end)
            self.text = passage[self.start:self.end]
        elif passage is not None:  # no span (abstained, or free mode): offsets 0
            self.start = self.end = len(utf8[:self.byte_start].decode("utf-8", "ignore"))
        self.abstained = bool(info.abstained)
        self.stopped_on_eot = bool(info.stopped_on_eot)
        self.mean_logprob = info.mean_logprob
        self.probability = info.probability
        self.no_answer_margin = info.no_answer_margin
        self.no_answer_threshold = info.no_answer_threshold
        self.prefill_ms = info.prefill_ns / 1e6
        self.decode_ms = info.decode_ns / 1e6
        self.isa = _isa_name(info.isa)
        self.question_tokens = info.question_tokens
        self.passage_tokens = info.passage_tokens
        self.answer_tokens = info.answer_tokens

    @property
    def span(self):
        return (self.start, self.end)

    def __repr__(self):
        return "Answer(text=%r, span=%r, abstained=%r, probability=%.3g, isa=%r)" % (
            self.text, self.span, self.abstained, self.probability, self.isa)


class Session:
    """A session living in one 64-byte aligned buffer owned by this object.
    Single-threaded: use one session per thread.

    `threshold` (float) replaces the model's no-answer threshold: it abstains iff
    no_answer_margin > threshold (math.inf: never abstains on a scored passage).
    `threshold_file` reads it from the JSON that `amxqa calibrate --out` writes
    (best.threshold); a malformed file is a ValueError. Give at most one of the two.
    `max_top_k` bounds answer_topk()'s k (a larger k is a ValueError). `windows=True`
    answers a passage over max_passage_tokens in windows sharing `window_overlap` tokens
    (amxqa.h "Long passages"). set_options() changes max_answer_tokens, windows,
    window_overlap, whole_words and max_top_k for later answers (README "Request fields").
    """

    def __init__(self, model, max_passage_tokens=4096, isa="auto", max_question_tokens=None,
                 max_answer_tokens=None, extractive=True, use_vocab_mask=True, whole_words=True,
                 threshold=None, threshold_file=None, max_top_k=1, windows=False, window_overlap=0):
        lib = _library()
        if threshold is not None and threshold_file is not None:
            raise ValueError("give threshold or threshold_file, not both")
        if threshold_file is not None:
            threshold = read_threshold_file(threshold_file)
        self.model = model  # keeps the model mapping alive
        opt = _native.SessionOptions()
        lib.amxqa_session_options_default(ctypes.byref(opt))
        opt.max_passage_tokens = max_passage_tokens
        if max_question_tokens is not None:
            opt.max_question_tokens = max_question_tokens
        if max_answer_tokens is not None:
            opt.max_answer_tokens = max_answer_tokens
        opt.isa = _isa_value(isa)
        opt.extractive = 1 if extractive else 0
        opt.use_vocab_mask = 1 if use_vocab_mask else 0
        opt.whole_words = 1 if whole_words else 0
        opt.max_top_k = max_top_k
        opt.windows = 1 if windows else 0
        opt.window_overlap = window_overlap
        if threshold is not None:
            opt.override_threshold = 1
            opt.no_answer_threshold = _threshold_value(threshold)
        size = lib.amxqa_session_size(model._handle, ctypes.byref(opt))
        if size == 0:
            raise Error(2, "session options are invalid for this model")
        self.size = size
        self._opt = opt
        self.max_top_k = max(1, max_top_k)
        self._memory, addr = _native.aligned_buffer(size)
        handle = ctypes.c_void_p()
        _check(lib.amxqa_session_init(model._handle, ctypes.byref(opt), addr, size, ctypes.byref(handle)))
        self._handle = handle
        # Free-mode answers are detokenized: bounded by the token cap times the longest piece.
        longest = max(len(model.token_bytes(i) or b"") for i in range(model.info["vocab_size"]))
        self._free_cap = opt.max_answer_tokens * max(longest, 1)
        self._out = ctypes.create_string_buffer(max(self._free_cap, 256) + 1)
        self._info = _native.AnswerInfo()
        self._extractive = bool(extractive)

    @property
    def isa(self):
        """The backend this session runs ("avx512", ...)."""
        return _isa_name(_library().amxqa_session_isa(self._handle))

    def set_threshold(self, threshold):
        """Sets the no-answer threshold for later answers; None restores the one the
        session was made with (amxqa_session_set_threshold)."""
        self._open()
        value = math.nan if threshold is None else _threshold_value(threshold)
        _check(_library().amxqa_session_set_threshold(self._handle, value), self._handle)

    def set_options(self, max_answer_tokens=None, windows=None, window_overlap=None, whole_words=None,
                    max_top_k=None):
        """Changes these options for later answers (amxqa_session_set_options): each one
        given replaces the session's own; with none given, the session's own apply again.
        Counts may not exceed the ones the session was made with (Error otherwise)."""
        self._open()
        opt = _native.SessionOptions.from_buffer_copy(self._opt)
        if max_answer_tokens is not None:
            opt.max_answer_tokens = max_answer_tokens
        if windows is not None:
            opt.windows = 1 if windows else 0
        if window_overlap is not None:
            opt.window_overlap = window_overlap
        if whole_words is not None:
            opt.whole_words = 1 if whole_words else 0
        if max_top_k is not None:
            opt.max_top_k = max_top_k
        _check(_library().amxqa_session_set_options(self._handle, ctypes.byref(opt)), self._handle)

    def _check_answer(self, status):
        """_check, with a passage over the cap named in this package's terms."""
        if status == _PASSAGE_TOO_LONG:
            raise Error(status, "the passage needs more than the %d tokens of max_passage_tokens%s" % (
                self._opt.max_passage_tokens,
                "" if self._opt.windows else ": make the session with windows=True, or a larger max_passage_tokens"))
        _check(status, self._handle)

    def answer(self, question, passage):
        """Answers `question` about `passage` (str or bytes); raises Error."""
        self._open()
        q = _bytes(question, "question")
        p = _bytes(passage, "passage")
        need = max(len(p), self._free_cap) + 1
        if len(self._out) < need:  # grows only for a longer passage than ever before
            self._out = ctypes.create_string_buffer(need)
        status = _library().amxqa_answer(self._handle, q, len(q), p, len(p), self._out, len(self._out),
                                         ctypes.byref(self._info))
        self._check_answer(status)
        return self._result(passage, p, self._out.value)

    def answer_stream(self, question, passage, on_token):
        """Answers like answer(), calling on_token(piece) as each answer token is decoded
        (amxqa_answer_stream), from inside the decoding loop. `piece` is str for a str
        passage (UTF-8 split across tokens is held back until whole), else bytes; empty
        pieces are not passed. on_token returning a true value stops decoding: Error
        AMXQA_ERR_CANCELLED, as a non-zero return does in C and `true` in C++. An exception
        in on_token stops decoding and is re-raised."""
        self._open()
        q = _bytes(question, "question")
        p = _bytes(passage, "passage")
        text = isinstance(passage, str)
        decoder = codecs.getincrementaldecoder("utf-8")("replace") if text else None
        pieces, raised = [], []

        def deliver(piece):
            return bool(piece) and bool(on_token(piece))

        def trampoline(_user, data, length):
            try:
                chunk = ctypes.string_at(data, length)
                pieces.append(chunk)
                return 1 if deliver(decoder.decode(chunk) if text else chunk) else 0
            except BaseException as e:  # ctypes would print and drop it
                raised.append(e)
                return 1

        callback = _native.TOKEN_FN(trampoline)
        status = _library().amxqa_answer_stream(self._handle, q, len(q), p, len(p), callback, None,
                                                ctypes.byref(self._info))
        if raised:
            raise raised[0]
        _check(status, self._handle)
        if text:
            deliver(decoder.decode(b"", final=True))
        return self._result(passage, p, b"".join(pieces))

    def answer_topk(self, question, passage, k):
        """Up to k distinct candidate spans (amxqa_answer_topk), as Answers with
        `probability` the span's score; the first is answer()'s answer, the rest follow by
        score. An abstention gives [] (then last_probability is that of "no answer"). k above
        the session's max_top_k is a ValueError, never a silent cap."""
        self._open()
        if not 1 <= k <= self.max_top_k:
            raise ValueError("k=%d: answer_topk takes 1..max_top_k=%d; make the session with max_top_k=%d"
                             % (k, self.max_top_k, max(k, 1)))
        q = _bytes(question, "question")
        p = _bytes(passage, "passage")
        spans = (_native.Span * max(k, 1))()
        for s in spans:
            s.struct_size = ctypes.sizeof(_native.Span)
        n = ctypes.c_size_t(0)
        status = _library().amxqa_answer_topk(self._handle, q, len(q), p, len(p), spans, k, ctypes.byref(n),
                                              ctypes.byref(self._info))
        self._check_answer(status)
        out = []
        for s in spans[:n.value]:
            info = _native.AnswerInfo.from_buffer_copy(self._info)
            info.span_begin, info.span_end, info.probability = s.begin, s.end, s.score
            info.answer_tokens = s.answer_tokens
            raw = p[s.begin:s.end]
            out.append(Answer(raw, info, passage, p) if isinstance(passage, str) else Answer(raw, info))
        return out

    @property
    def last_probability(self):
        """info.probability of the last answer: of the answer given, or of "no answer"."""
        return self._info.probability

    def answer_many(self, pairs):
        """Answers each (question, passage) of `pairs` in order; returns the list of
        Answers. The first failure raises its Error with `.index` set to the pair's position."""
        answers = []
        for index, (question, passage) in enumerate(pairs):
            try:
                answers.append(self.answer(question, passage))
            except Error as e:
                e.index = index
                raise
        return answers

    def _open(self):
        if self._handle is None:
            raise Error(1, "session is closed")

    def _result(self, passage, p, generated):
        """The Answer for the call just made: its span's exact passage bytes in extractive
        mode (even with embedded NULs), else the `generated` bytes."""
        info = self._info
        if self._extractive and info.span_end > info.span_begin:
            raw = p[info.span_begin:info.span_end]
        else:
            raw = generated
        return Answer(raw, info, passage, p) if isinstance(passage, str) else Answer(raw, info)

    def close(self):
        """Releases per-thread hardware state; the memory is freed with the object."""
        if self._handle is not None:
            _library().amxqa_session_finish(self._handle)
            self._handle = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass
