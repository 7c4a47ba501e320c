"""Tests of the amxqa ctypes binding (Debian python3 unittest, no pip).

Needs AMXQA_LIBRARY (the built libamxqa.so) and AMXQA_TEST_MODEL (the tiny
random model written by amxqa-make-test-model); CTest sdk_python.integration
sets both. The random model answers garbage, but with valid spans.
"""
import ctypes
import gc
import os
import pathlib
import tempfile
import unittest

import amxqa
from amxqa import _native

REPO = pathlib.Path(__file__).resolve().parents[3]
PASSAGE = (REPO / "samples" / "data" / "lighthouse.txt").read_text(encoding="utf-8")
QUESTION = "Who designed the present tower?"
MODEL = os.environ.get("AMXQA_TEST_MODEL", "")


class LibraryTest(unittest.TestCase):
    def test_version_and_cpu(self):
        self.assertRegex(amxqa.version(), r"^\d+\.\d+\.\d+$")
        cpu = amxqa.cpu_info()
        self.assertIn(cpu["best"], _native.ISA_NAMES)
        self.assertTrue(cpu["amx_reason"].startswith("AMX:"), cpu["amx_reason"])

    def test_aligned_buffer(self):
        for size in (0, 1, 63, 64, 1000):
            buf, addr = _native.aligned_buffer(size)
            self.assertEqual(addr % 64, 0)
            self.assertLessEqual(addr + size, ctypes.addressof(buf) + ctypes.sizeof(buf))


@unittest.skipUnless(MODEL, "AMXQA_TEST_MODEL is not set")
class ModelTest(unittest.TestCase):
    def setUp(self):
        self.model = amxqa.Model(MODEL)

    def test_info(self):
        info = self.model.info
        self.assertEqual(info["format_version"], 1)
        self.assertEqual(info["vocab_size"], 300)
        self.assertEqual(len(info["layer_kinds"].split()), info["n_layers"])
        self.assertLess(info["vocab_masked"], info["vocab_size"])
        self.assertGreaterEqual(info["param_count"], info["active_param_count"])
        self.assertIsInstance(self.model.scores, dict)

    def test_tokenizer_round_trip(self):
        ids = self.model.tokenize("the lighthouse")
        self.assertGreater(len(ids), 0)
        self.assertEqual(b"".join(self.model.token_bytes(i) for i in ids), b"the lighthouse")
        self.assertIsNone(self.model.token_bytes(10 ** 6))

    def test_verify_clean_and_broken(self):
        self.assertEqual(amxqa.verify(MODEL), [])
        with tempfile.TemporaryDirectory() as d:
            truncated = os.path.join(d, "truncated.amxqa")
            with open(MODEL, "rb") as f, open(truncated, "wb") as g:
                g.write(f.read(1000))
            failures = amxqa.verify(truncated)
            self.assertGreater(len(failures), 0)
            self.assertTrue(all(name.startswith("AMXQA_ERR_MODEL_") for name, _ in failures), failures)
            with self.assertRaises(amxqa.Error) as cm:
                amxqa.Model(truncated)
            self.assertGreaterEqual(cm.exception.status, 20)
            empty = os.path.join(d, "empty.amxqa")
            open(empty, "wb").close()
            with self.assertRaises(amxqa.Error) as cm:
                amxqa.Model(empty)
            self.assertEqual(cm.exception.status_name, "AMXQA_ERR_MODEL_TRUNCATED")

    def test_not_a_model(self):
        with self.assertRaises(amxqa.Error) as cm:
            amxqa.Model(REPO / "samples" / "data" / "lighthouse.txt")
        self.assertEqual(cm.exception.status_name, "AMXQA_ERR_MODEL_IDENTIFIER")
        self.assertTrue(cm.exception.message)
        with self.assertRaises(OSError):
            amxqa.Model("/nonexistent/model.amxqa")


@unittest.skipUnless(MODEL, "AMXQA_TEST_MODEL is not set")
class SessionTest(unittest.TestCase):
    def setUp(self):
        self.model = amxqa.Model(MODEL)
        self.session = self.model.session(max_passage_tokens=1024)

    def tearDown(self):
        self.session.close()

    def test_answer_is_a_passage_span(self):
        a = self.session.answer(QUESTION, PASSAGE)
        raw = PASSAGE.encode("utf-8")
        begin, end = a.byte_start, a.byte_end  # a.span is in characters for a str passage
        if a.abstained:
            self.assertEqual(a.text, "")
        else:
            self.assertLessEqual(begin, end)
            self.assertLessEqual(end, len(raw))
            self.assertEqual(a.raw, raw[begin:end])
            self.assertEqual(a.text, a.raw.decode("utf-8", "replace"))
        self.assertEqual(a.isa, self.session.isa)
        self.assertGreater(a.passage_tokens, 0)
        self.assertGreater(a.prefill_ms, 0)
        self.assertLess(a.mean_logprob, 0.0 + 1e-6)

    def test_deterministic_and_bytes_equal_str(self):
        first = self.session.answer(QUESTION, PASSAGE)
        again = self.session.answer(QUESTION.encode(), PASSAGE.encode())
        self.assertEqual((first.raw, first.span, first.abstained), (again.raw, again.span, again.abstained))

    def test_any_bytes_are_answered(self):
        passage = b"caf\xc3\xa9 \xff\xfe invalid \x00 nul and more text here"
        a = self.session.answer(b"what \x00?", passage)
        if not a.abstained:
            self.assertEqual(a.raw, passage[a.span[0]:a.span[1]])  # bytes in, byte offsets out

    def test_empty_passage_abstains(self):
        a = self.session.answer(QUESTION, "")
        self.assertTrue(a.abstained)
        self.assertEqual(a.text, "")

    def test_errors_raise_with_status(self):
        with self.assertRaises(amxqa.Error) as cm:
            self.session.answer("", PASSAGE)
        self.assertEqual(cm.exception.status_name, "AMXQA_ERR_EMPTY_QUESTION")
        small = self.model.session(max_passage_tokens=8)
        with self.assertRaises(amxqa.Error) as cm:
            small.answer(QUESTION, PASSAGE)
        self.assertEqual(cm.exception.status_name, "AMXQA_ERR_PASSAGE_TOO_LONG")
        with self.assertRaises(TypeError):
            self.session.answer(42, PASSAGE)
        with self.assertRaises(ValueError):
            self.model.session(isa="sse9")

    def test_forced_isa(self):
        s = self.model.session(max_passage_tokens=1024, isa="scalar")
        self.assertEqual(s.isa, "scalar")
        self.assertEqual(s.answer(QUESTION, PASSAGE).isa, "scalar")

    def test_session_keeps_model_alive(self):
        model = amxqa.Model(MODEL)
        with model.session(max_passage_tokens=1024) as s:
            del model
            gc.collect()
            a = s.answer(QUESTION, PASSAGE)
            self.assertEqual(a.raw, self.session.answer(QUESTION, PASSAGE).raw)

    def test_closed_session_raises(self):
        s = self.model.session(max_passage_tokens=64)
        s.close()
        s.close()  # twice is fine
        with self.assertRaises(amxqa.Error):
            s.answer(QUESTION, "short")


if __name__ == "__main__":
    unittest.main()
