"""Loading libamxqa and declaring its C API (include/amxqa.h) for ctypes.

Where the library is looked for: _locate.py ($AMXQA_LIBRARY first).
"""
import ctypes
import os

from ._locate import library_candidates as _candidates

MODEL_STORAGE_BYTES = 16384  # AMXQA_MODEL_STORAGE_BYTES
ALIGNMENT = 64

ISA_NAMES = ("auto", "scalar", "avx2", "avx512", "amx", "amx-emulated", "neon",
             "neon-dotprod")  # amxqa_isa values 0..7


class _Sized(ctypes.Structure):
    """A struct that grows (amxqa.h): struct_size is set to sizeof on creation."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.struct_size = ctypes.sizeof(self)


class CpuInfo(_Sized):
    _fields_ = [
        ("struct_size", ctypes.c_uint32),
        ("vendor", ctypes.c_char * 16),
        ("model_name", ctypes.c_char * 64),
        ("has_avx2_fma", ctypes.c_uint8),
        ("has_avx512", ctypes.c_uint8),
        ("has_avx512_bf16", ctypes.c_uint8),
        ("has_avx512_vnni", ctypes.c_uint8),
        ("has_amx", ctypes.c_uint8),
        ("best", ctypes.c_int),
        ("amx_reason", ctypes.c_char * 96),
        ("max_isa_env", ctypes.c_char * 16),
        ("has_neon", ctypes.c_uint8),
        ("has_neon_dotprod", ctypes.c_uint8),
        ("arm_reason", ctypes.c_char * 96),
    ]


class ModelInfo(_Sized):
    _fields_ = [(name, ctypes.c_uint32) for name in (
        "struct_size", "format_version", "d_model", "n_layers", "n_heads", "n_kv_heads", "head_dim", "window",
        "lin_state", "d_ff", "moe_experts", "moe_top_k", "moe_d_ff", "moe_route_block",
        "moe_route_window", "moe_layer_count", "vocab_size", "vocab_masked")] + [
        ("layer_kinds", ctypes.c_char * 64),
        ("weight_dtype", ctypes.c_char * 8),
        ("weight_bytes", ctypes.c_uint64),
        ("param_count", ctypes.c_uint64),
        ("active_param_count", ctypes.c_uint64),
        ("trainer_version", ctypes.c_char * 32),
        ("recipe", ctypes.c_char * 64),
        ("tokens_seen", ctypes.c_uint64),
        ("no_answer_threshold", ctypes.c_float),
        ("calibrated", ctypes.c_uint8),
        ("calibration_method", ctypes.c_char * 63),
        ("weight_bits", ctypes.c_uint32),
    ]


class SessionOptions(ctypes.Structure):
    _fields_ = [
        ("struct_size", ctypes.c_uint32),
        ("max_passage_tokens", ctypes.c_uint32),
        ("max_question_tokens", ctypes.c_uint32),
        ("max_answer_tokens", ctypes.c_uint32),
        ("isa", ctypes.c_int),
        ("extractive", ctypes.c_uint8),
        ("use_vocab_mask", ctypes.c_uint8),
        ("whole_words", ctypes.c_uint8),
        ("override_threshold", ctypes.c_uint8),
        ("windows", ctypes.c_uint8),
        ("max_top_k", ctypes.c_uint8),
        ("window_overlap", ctypes.c_uint16),
        ("no_answer_threshold", ctypes.c_float),
    ]


class AnswerInfo(_Sized):
    _fields_ = [
        ("struct_size", ctypes.c_uint32),
        ("span_begin", ctypes.c_uint64),
        ("span_end", ctypes.c_uint64),
        ("abstained", ctypes.c_uint8),
        ("stopped_on_eot", ctypes.c_uint8),
        ("reserved", ctypes.c_uint8 * 2),
        ("mean_logprob", ctypes.c_float),
        ("question_tokens", ctypes.c_uint32),
        ("passage_tokens", ctypes.c_uint32),
        ("answer_tokens", ctypes.c_uint32),
        ("prefill_ns", ctypes.c_uint64),
        ("decode_ns", ctypes.c_uint64),
        ("isa", ctypes.c_int),
        ("probability", ctypes.c_float),
        ("no_answer_margin", ctypes.c_float),
        ("no_answer_threshold", ctypes.c_float),
        ("windows", ctypes.c_uint32),
        ("window", ctypes.c_uint32),
    ]


class Span(_Sized):
    _fields_ = [
        ("struct_size", ctypes.c_uint32),
        ("score", ctypes.c_float),
        ("begin", ctypes.c_uint64),
        ("end", ctypes.c_uint64),
        ("window", ctypes.c_uint32),
        ("answer_tokens", ctypes.c_uint32),
    ]


REPORT_FN = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_int, ctypes.c_char_p)
# amxqa_token_fn: the bytes are not NUL-terminated, so a pointer, not c_char_p.
TOKEN_FN = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.POINTER(ctypes.c_char), ctypes.c_size_t)


def _declare(lib):
    c = ctypes
    sigs = {
        "amxqa_version": (c.c_char_p, []),
        "amxqa_version_number": (c.c_uint, []),
        "amxqa_status_name": (c.c_char_p, [c.c_int]),
        "amxqa_isa_name": (c.c_char_p, [c.c_int]),
        "amxqa_cpu_query": (c.c_int, [c.POINTER(CpuInfo)]),
        "amxqa_last_error": (c.c_char_p, [c.c_void_p]),
        "amxqa_model_open": (c.c_int, [c.c_void_p, c.c_size_t, c.c_void_p, c.POINTER(c.c_void_p)]),
        "amxqa_model_verify": (c.c_int, [c.c_void_p, c.c_size_t, REPORT_FN, c.c_void_p]),
        "amxqa_model_get_info": (c.c_int, [c.c_void_p, c.POINTER(ModelInfo)]),
        "amxqa_model_scores": (c.c_size_t, [c.c_void_p, c.POINTER(c.c_char_p), c.POINTER(c.c_float),
                                            c.c_size_t]),
        "amxqa_session_options_default": (None, [c.POINTER(SessionOptions)]),
        "amxqa_session_size": (c.c_size_t, [c.c_void_p, c.POINTER(SessionOptions)]),
        "amxqa_session_init": (c.c_int, [c.c_void_p, c.POINTER(SessionOptions), c.c_void_p, c.c_size_t,
                                         c.POINTER(c.c_void_p)]),
        "amxqa_session_finish": (None, [c.c_void_p]),
        "amxqa_session_isa": (c.c_int, [c.c_void_p]),
        "amxqa_answer": (c.c_int, [c.c_void_p, c.c_char_p, c.c_size_t, c.c_char_p, c.c_size_t, c.c_void_p,
                                   c.c_size_t, c.POINTER(AnswerInfo)]),
        "amxqa_answer_stream": (c.c_int, [c.c_void_p, c.c_char_p, c.c_size_t, c.c_char_p, c.c_size_t, TOKEN_FN,
                                          c.c_void_p, c.POINTER(AnswerInfo)]),
        "amxqa_session_set_threshold": (c.c_int, [c.c_void_p, c.c_float]),
        "amxqa_session_set_options": (c.c_int, [c.c_void_p, c.POINTER(SessionOptions)]),
        "amxqa_answer_topk": (c.c_int, [c.c_void_p, c.c_char_p, c.c_size_t, c.c_char_p, c.c_size_t, c.POINTER(Span),
                                        c.c_size_t, c.POINTER(c.c_size_t), c.POINTER(AnswerInfo)]),
        "amxqa_tokenize": (c.c_size_t, [c.c_void_p, c.c_char_p, c.c_size_t, c.POINTER(c.c_uint32),
                                        c.c_size_t]),
        "amxqa_token_bytes": (c.c_void_p, [c.c_void_p, c.c_uint32, c.POINTER(c.c_size_t)]),
    }
    for name, (restype, argtypes) in sigs.items():
        fn = getattr(lib, name)
        fn.restype = restype
        fn.argtypes = argtypes
    return lib


def load():
    """Loads libamxqa; raises OSError naming every place tried."""
    tried = []
    for path in _candidates():
        if os.sep in path and not os.path.exists(path):
            tried.append(path + " (absent)")
            continue
        try:
            return _declare(ctypes.CDLL(path)), path
        except OSError as e:
            tried.append("%s (%s)" % (path, e))
    raise OSError("libamxqa not found; set AMXQA_LIBRARY. Tried: " + "; ".join(tried))


def aligned_buffer(size):
    """A zeroed ctypes buffer with a 64-byte aligned address inside it.

    Returns (buffer, address); keep the buffer alive as long as the address is used.
    """
    buf = ctypes.create_string_buffer(max(size, 1) + ALIGNMENT - 1)
    addr = ctypes.addressof(buf)
    return buf, (addr + ALIGNMENT - 1) & ~(ALIGNMENT - 1)
