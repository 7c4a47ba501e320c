"""Session.answer_topk (amxqa_answer_topk) and windows for long passages."""
import unittest

import amxqa

from _support import MODEL, PASSAGE, QUESTION, REPO, UNICODE_PASSAGE, requires_model

DEFAULT_MODEL = str(REPO / "sdk" / "models" / "default.amxqa")  # a start-pointer model


@requires_model
class TopKTest(unittest.TestCase):
    def check_candidates(self, model_path, k):
        with amxqa.Model(model_path).session(max_top_k=k) as s:
            for passage in (PASSAGE, UNICODE_PASSAGE, PASSAGE.encode("utf-8")):
                best = s.answer(QUESTION, passage)
                spans = s.answer_topk(QUESTION, passage, k)
                self.assertLessEqual(len(spans), k)
                if best.abstained:
                    self.assertEqual(spans, [])
                    continue
                self.assertEqual((spans[0].raw, spans[0].span), (best.raw, best.span))
                self.assertAlmostEqual(spans[0].probability, best.probability, places=5)
                self.assertEqual(len({a.span for a in spans}), len(spans))
                for a in spans:
                    self.assertGreaterEqual(a.probability, 0.0)
                    self.assertLessEqual(a.probability, 1.0)
                    self.assertEqual(passage[a.start:a.end], a.text if isinstance(passage, str) else a.raw)
                return len(spans)

    def test_first_candidate_is_the_answer(self):
        self.check_candidates(MODEL, 4)

    def test_default_model_gives_several(self):
        self.assertGreater(self.check_candidates(DEFAULT_MODEL, 3), 1)

    def test_k_over_the_session_is_an_error_not_a_silent_cap(self):
        with amxqa.Model(DEFAULT_MODEL).session(max_top_k=2) as s:
            with self.assertRaisesRegex(ValueError, "max_top_k=5"):
                s.answer_topk(QUESTION, PASSAGE, 5)
            self.assertLessEqual(len(s.answer_topk(QUESTION, PASSAGE, 2)), 2)
        with amxqa.Model(DEFAULT_MODEL).session() as s:  # a default session: max_top_k 1
            with self.assertRaisesRegex(ValueError, "max_top_k"):
                s.answer_topk(QUESTION, PASSAGE, 3)


@requires_model
class WindowsTest(unittest.TestCase):
    def test_long_passage_needs_windows(self):
        model = amxqa.Model(MODEL)
        with model.session(max_passage_tokens=64) as s:
            with self.assertRaises(amxqa.Error) as cm:
                s.answer(QUESTION, PASSAGE)
            self.assertEqual(cm.exception.status_name, "AMXQA_ERR_PASSAGE_TOO_LONG")
            # The message names this package's options, not the C struct's fields.
            self.assertIn("windows=True", cm.exception.message)
            self.assertIn("max_passage_tokens", cm.exception.message)
            self.assertNotIn("amxqa_session_options", cm.exception.message)
            s.set_options(windows=True, window_overlap=16)  # per call, as a request's fields
            a = s.answer(QUESTION, PASSAGE)
            self.assertTrue(a.abstained or PASSAGE[a.start:a.end] == a.text)
            s.set_options()  # the session's own again
            with self.assertRaises(amxqa.Error):
                s.answer(QUESTION, PASSAGE)
            with self.assertRaisesRegex(amxqa.Error, "max_answer_tokens"):
                s.set_options(max_answer_tokens=33)  # over the session's cap
        with model.session(max_passage_tokens=64, windows=True, window_overlap=16) as s:
            a = s.answer(QUESTION, PASSAGE)
            if not a.abstained:
                self.assertEqual(PASSAGE[a.start:a.end], a.text)


if __name__ == "__main__":
    unittest.main()
