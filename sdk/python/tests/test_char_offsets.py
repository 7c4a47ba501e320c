"""Answer.start/end are characters for a str passage, bytes for a bytes passage."""
import unittest

import amxqa
from amxqa import _native, api

from _support import MODEL, UNICODE_PASSAGE, requires_model


def fake_info(byte_start, byte_end):
    info = _native.AnswerInfo()
    info.span_begin, info.span_end = byte_start, byte_end
    return info


class CharOffsetTest(unittest.TestCase):
    """Offsets computed from a known byte span, without the model."""

    def test_span_after_multibyte_characters(self):
        utf8 = UNICODE_PASSAGE.encode("utf-8")
        name = "Jürgen Müller".encode("utf-8")
        b0 = utf8.index(name)
        a = api.Answer(name, fake_info(b0, b0 + len(name)), UNICODE_PASSAGE, utf8)
        self.assertEqual((a.byte_start, a.byte_end), (b0, b0 + len(name)))
        self.assertEqual(UNICODE_PASSAGE[a.start:a.end], "Jürgen Müller")
        self.assertEqual(a.span, (a.start, a.end))
        self.assertEqual(a.text, "Jürgen Müller")
        self.assertLess(a.start, a.byte_start)

    def test_edges_inside_a_character_move_inward(self):
        utf8 = UNICODE_PASSAGE.encode("utf-8")
        cut = utf8.index("Über".encode("utf-8")) + 1  # between the two bytes of Ü
        a = api.Answer(utf8[cut:cut + 4], fake_info(cut, cut + 4), UNICODE_PASSAGE, utf8)
        self.assertEqual(a.text, "ber")
        self.assertEqual(UNICODE_PASSAGE[a.start:a.end], "ber")
        b = api.Answer(utf8[cut - 3:cut], fake_info(cut - 3, cut), UNICODE_PASSAGE, utf8)  # «, then half of Ü
        self.assertEqual(b.text, "«")  # the cut Ü is left out

    def test_bytes_passage_keeps_byte_offsets(self):
        utf8 = UNICODE_PASSAGE.encode("utf-8")
        a = api.Answer(utf8[34:41], fake_info(34, 41))
        self.assertEqual((a.start, a.end), (34, 41))


@requires_model
class ModelCharOffsetTest(unittest.TestCase):
    def test_str_and_bytes_answers_agree(self):
        model = amxqa.Model(MODEL)
        with model.session(max_passage_tokens=256) as s:
            for q in ("Who founded the café?", "When was it founded?", "What is it called?"):
                a = s.answer(q, UNICODE_PASSAGE)
                b = s.answer(q, UNICODE_PASSAGE.encode("utf-8"))
                self.assertEqual((a.byte_start, a.byte_end), (b.byte_start, b.byte_end))
                self.assertEqual((b.start, b.end), (b.byte_start, b.byte_end))
                self.assertEqual(a.text, UNICODE_PASSAGE[a.start:a.end])
                self.assertLessEqual(len(UNICODE_PASSAGE[:a.start].encode("utf-8")), a.byte_start)


if __name__ == "__main__":
    unittest.main()
