"""amxqa — extractive question answering on one CPU core (ctypes binding of libamxqa).

    import amxqa
    model = amxqa.Model(amxqa.default_model())           # mmap'd, verified
    session = model.session(max_passage_tokens=4096)     # one aligned buffer
    a = session.answer("Who designed the tower?", passage)
    print("(no answer)" if a.abstained else a.text, a.start, a.end, a.probability)

Also Session.answer_stream (a callback per decoded token), Session.answer_many (a list
of (question, passage) pairs), and Session(threshold=..., threshold_file=...) for the
no-answer threshold. Where libamxqa and the default model are found: _locate.py
($AMXQA_LIBRARY and $AMXQA_MODEL first). Failures raise amxqa.Error(status, message).
"""
from ._locate import default_model
from ._version import __version__
from .api import Answer, Error, Model, Session, cpu_info, library_path, verify, version

__all__ = ["Answer", "Error", "Model", "Session", "__version__", "cpu_info", "default_model", "library_path",
           "verify", "version"]
