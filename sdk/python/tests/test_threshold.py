"""The no-answer threshold: Session(threshold=...), threshold_file=, set_threshold."""
import json
import math
import os
import tempfile
import unittest

import amxqa
from amxqa import _threshold

from _support import MODEL, PASSAGE, QUESTION, requires_model


class ThresholdFileTest(unittest.TestCase):
    def write(self, text):
        fd, path = tempfile.mkstemp(suffix=".json")
        with os.fdopen(fd, "w") as f:
            f.write(text)
        self.addCleanup(os.unlink, path)
        return path

    def test_reads_best_threshold(self):
        path = self.write(json.dumps({"best": {"threshold": -1.25, "f1": 50.0}, "steps": [{"threshold": 0}]}))
        self.assertEqual(_threshold.read_threshold_file(path), -1.25)

    def test_malformed_files_are_value_errors(self):
        for text in ("{not json", "[]", '{"steps": []}', '{"best": 3}', '{"best": {}}',
                     '{"best": {"threshold": "1.0"}}', '{"best": {"threshold": true}}',
                     '{"best": {"threshold": NaN}}'):
            with self.subTest(text=text):
                path = self.write(text)
                with self.assertRaises(ValueError) as cm:
                    _threshold.read_threshold_file(path)
                self.assertIn(path, str(cm.exception))


@requires_model
class SessionThresholdTest(unittest.TestCase):
    def setUp(self):
        self.model = amxqa.Model(MODEL)

    def answer(self, **options):
        with self.model.session(max_passage_tokens=1024, **options) as s:
            return s.answer(QUESTION, PASSAGE)

    def test_answer_reports_the_decision(self):
        a = self.answer()
        self.assertEqual(a.no_answer_threshold, self.model.info["no_answer_threshold"])
        self.assertEqual(a.abstained, a.no_answer_margin > a.no_answer_threshold)
        self.assertTrue(0.0 <= a.probability <= 1.0, a.probability)

    def test_threshold_decides_abstention(self):
        margin = self.answer().no_answer_margin
        never = self.answer(threshold=math.inf)
        self.assertFalse(never.abstained)
        self.assertEqual(never.no_answer_threshold, math.inf)
        always = self.answer(threshold=margin - 1.0)
        self.assertTrue(always.abstained)
        self.assertEqual(always.text, "")
        with self.assertRaises(ValueError):
            self.answer(threshold=math.nan)
        with self.assertRaises(ValueError):
            self.answer(threshold=0.0, threshold_file="calibration.json")

    def test_threshold_file(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "calibration.json")
            with open(path, "w") as f:
                json.dump({"best": {"threshold": 7.5}, "steps": []}, f)
            self.assertEqual(self.answer(threshold_file=path).no_answer_threshold, 7.5)
            with open(path, "w") as f:
                f.write('{"best": {}}')
            with self.assertRaises(ValueError):
                self.answer(threshold_file=path)

    def test_set_threshold_and_restore(self):
        with self.model.session(max_passage_tokens=1024, threshold=2.0) as s:
            s.set_threshold(math.inf)
            self.assertEqual(s.answer(QUESTION, PASSAGE).no_answer_threshold, math.inf)
            s.set_threshold(None)
            self.assertEqual(s.answer(QUESTION, PASSAGE).no_answer_threshold, 2.0)
            with self.assertRaises(ValueError):
                s.set_threshold(-math.inf)


if __name__ == "__main__":
    unittest.main()
