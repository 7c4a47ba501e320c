#!/usr/bin/env python3
"""Answers questions about a passage with the amxqa Python package.

    python3 samples/python/ask.py MODEL PASSAGE_FILE QUESTION...

Finds libamxqa via $AMXQA_LIBRARY, the build tree, or the install prefix;
run with PYTHONPATH=sdk/python from the repository (or install the package).
"""
import sys

import amxqa


def main(argv):
    if len(argv) < 4:
        print("usage: ask.py MODEL PASSAGE_FILE QUESTION...", file=sys.stderr)
        return 2
    try:
        model = amxqa.Model(argv[1])
    except (amxqa.Error, OSError) as e:
        print("%s: %s" % (argv[1], e), file=sys.stderr)
        return 1
    with open(argv[2], "rb") as f:
        passage = f.read()
    info = model.info
    print("model: %s layers (%s), d_model %d, vocab %d" % (info["n_layers"], info["layer_kinds"], info["d_model"],
                                                           info["vocab_size"]))
    with model.session(max_passage_tokens=4096) as session:
        for question in argv[3:]:
            try:
                a = session.answer(question, passage)
            except amxqa.Error as e:
                print("%s: %s" % (question, e), file=sys.stderr)
                return 1
            print("%s\t[%s, %.2f ms]" % ("(no answer)" if a.abstained else a.text, a.isa, a.prefill_ms + a.decode_ms))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
