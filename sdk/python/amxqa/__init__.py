"""amxqa — extractive question answering on one CPU core (ctypes binding of libamxqa).

    import amxqa
    model = amxqa.Model("default.amxqa")                 # mmap'd, verified
    session = model.session(max_passage_tokens=4096)     # one aligned buffer
    a = session.answer("Who designed the tower?", passage)
    print("(no answer)" if a.abstained else a.text, a.prefill_ms + a.decode_ms, "ms")

The shared library is found via $AMXQA_LIBRARY, then <repo>/build/lib, then the
install prefix. Failures raise amxqa.Error(status, message).
"""
from .api import Answer, Error, Model, Session, cpu_info, library_path, verify, version

__all__ = ["Answer", "Error", "Model", "Session", "cpu_info", "library_path", "verify", "version"]
