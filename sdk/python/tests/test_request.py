"""amxqa.request: the JSON request of `amxqa serve` / `amxqa batch` for Python callers.
(sdk_surfaces.integration checks its answers against batch and HTTP line by line.)"""
import unittest

import amxqa
from amxqa import request

from _support import MODEL, UNICODE_PASSAGE, requires_model


class ParseTest(unittest.TestCase):
    def code(self, obj, **kw):
        with self.assertRaises(request.RequestError) as cm:
            request.parse(obj, **kw)
        return cm.exception.code, cm.exception.message

    def test_fields_and_errors(self):
        full = {"id": 3, "question": "q", "context": "c", "top_k": 2, "threshold": -1.5, "max_answer_tokens": 8,
                "windows": True, "window_overlap": 4, "whole_words": False}
        self.assertEqual(request.parse(full), full)
        self.assertEqual(request.parse({"question": "q", "context": "c", "top_k": None}),
                         {"question": "q", "context": "c"})
        code, message = self.code({"question": "q", "context": "c", "qestion": "x"})
        self.assertEqual(code, "unknown_field")
        self.assertTrue(message.startswith('"qestion" is not a request field'))
        self.assertEqual(self.code({"question": "q", "context": "c", "top_k": True})[0], "wrong_type")
        self.assertEqual(self.code({"question": "q", "context": "c", "top_k": 101})[0], "invalid_field")
        self.assertEqual(self.code({"question": "q", "context": "c", "windows": 1})[0], "wrong_type")
        self.assertEqual(self.code({"question": "q", "context": ""})[0], "empty_field")
        self.assertEqual(self.code({"question": "q", "context": "c"}, require_id=True)[0], "missing_field")
        self.assertEqual(self.code([1])[0], "malformed_json")


@requires_model
class AnswerTest(unittest.TestCase):
    def test_offsets_are_characters_and_bytes(self):
        with amxqa.Model(MODEL).session(max_top_k=request.MAX_TOP_K) as s:
            out = request.answer(s, request.parse({"question": "Who?", "context": UNICODE_PASSAGE, "top_k": 3,
                                                   "threshold": 1e38}))
            self.assertFalse(out["no_answer"])
            for span in [out] + out["candidates"]:
                self.assertEqual(UNICODE_PASSAGE[span["start"]:span["end"]], span["answer"])
                self.assertEqual(UNICODE_PASSAGE.encode()[span["byte_start"]:span["byte_end"]].decode(),
                                 span["answer"])
            none = request.answer(s, request.parse({"question": "Who?", "context": UNICODE_PASSAGE,
                                                    "threshold": -1e30}))
            self.assertEqual((none["no_answer"], none["answer"], none["candidates"]), (True, "", []))


if __name__ == "__main__":
    unittest.main()
