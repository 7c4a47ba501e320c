"""What the binding's tests share: the repository, the sample passage and the model.

AMXQA_TEST_MODEL is the tiny random model written by amxqa-make-test-model
(CTest sdk_python.integration sets it): it answers garbage, but with valid spans.
"""
import os
import pathlib
import unittest

REPO = pathlib.Path(__file__).resolve().parents[3]
PASSAGE = (REPO / "samples" / "data" / "lighthouse.txt").read_text(encoding="utf-8")
QUESTION = "Who designed the present tower?"
MODEL = os.environ.get("AMXQA_TEST_MODEL", "")
# Two-byte characters before and inside likely answers: byte and character offsets differ.
UNICODE_PASSAGE = "Le café «Über» à Zürich was founded by Jürgen Müller in 1905"

requires_model = unittest.skipUnless(MODEL, "AMXQA_TEST_MODEL is not set")
