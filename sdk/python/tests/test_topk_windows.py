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

    def test_k_is_capped_by_the_session(self):
        with amxqa.Model(DEFAULT_MODEL).session(max_top_k=2) as s:
            self.assertLessEqual(len(s.answer_topk(QUESTION, PASSAGE, 5)), 2)


@requires_model
class WindowsTest(unittest.TestCase):
    def test_long_passage_needs_windows(self):
        model = amxqa.Model(MODEL)
        with model.session(max_passage_tokens=64) as s:
            with self.assertRaises(amxqa.Error) as cm:
                s.answer(QUESTION, PASSAGE)
            self.assertEqual(cm.exception.status_name, "AMXQA_ERR_PASSAGE_TOO_LONG")
        with model.session(max_passage_tokens=64, windows=True, window_overlap=16) as s:
            a = s.answer(QUESTION, PASSAGE)
            if not a.abstained:
                self.assertEqual(PASSAGE[a.start:a.end], a.text)


if __name__ == "__main__":
    unittest.main()
