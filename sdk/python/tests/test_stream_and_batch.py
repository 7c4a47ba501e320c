"""Session.answer_stream (a callback per decoded token) and Session.answer_many."""
import unittest

import amxqa

from _support import MODEL, PASSAGE, QUESTION, UNICODE_PASSAGE, requires_model


@requires_model
class StreamTest(unittest.TestCase):
    def setUp(self):
        self.model = amxqa.Model(MODEL)
        self.session = self.model.session(max_passage_tokens=1024)

    def tearDown(self):
        self.session.close()

    def test_stream_matches_answer(self):
        for passage in (PASSAGE, UNICODE_PASSAGE, UNICODE_PASSAGE.encode("utf-8")):
            pieces = []
            streamed = self.session.answer_stream(QUESTION, passage, pieces.append)
            plain = self.session.answer(QUESTION, passage)
            self.assertEqual((streamed.raw, streamed.span, streamed.abstained),
                             (plain.raw, plain.span, plain.abstained))
            self.assertEqual(len(pieces) > 0, streamed.answer_tokens > 0)
            self.assertTrue(all(isinstance(p, type(passage)) and p for p in pieces), pieces)
            # Pieces are what the decoder emitted; the answer is that, edges trimmed.
            if not streamed.abstained:
                answer = streamed.text if isinstance(passage, str) else streamed.raw
                self.assertIn(answer, type(passage)().join(pieces))

    def test_true_from_callback_cancels(self):
        with self.assertRaises(amxqa.Error) as cm:
            self.session.answer_stream(QUESTION, PASSAGE, lambda piece: True)
        self.assertEqual(cm.exception.status_name, "AMXQA_ERR_CANCELLED")
        self.assertEqual(self.session.answer(QUESTION, PASSAGE).raw,
                         self.session.answer(QUESTION, PASSAGE).raw)  # still usable

    def test_exception_in_callback_is_raised(self):
        def boom(piece):
            raise KeyError("from the callback")
        with self.assertRaises(KeyError):
            self.session.answer_stream(QUESTION, PASSAGE, boom)


@requires_model
class AnswerManyTest(unittest.TestCase):
    def test_batch_equals_one_by_one(self):
        model = amxqa.Model(MODEL)
        pairs = [(QUESTION, PASSAGE), ("Who founded it?", UNICODE_PASSAGE), ("When?", b"In 1905.")]
        with model.session(max_passage_tokens=1024) as s:
            batch = s.answer_many(pairs)
            single = [s.answer(q, p) for q, p in pairs]
            self.assertEqual([(a.raw, a.span) for a in batch], [(a.raw, a.span) for a in single])
            self.assertEqual(s.answer_many([]), [])
            with self.assertRaises(amxqa.Error) as cm:
                s.answer_many(iter([(QUESTION, PASSAGE), ("", PASSAGE)]))
            self.assertEqual(cm.exception.index, 1)
            self.assertEqual(cm.exception.status_name, "AMXQA_ERR_EMPTY_QUESTION")


if __name__ == "__main__":
    unittest.main()
