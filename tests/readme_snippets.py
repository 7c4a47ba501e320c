#!/usr/bin/env python3
"""CTest readme_snippets.integration: the README's "Use it from your app" code, as written.

Every fenced block preceded by an HTML comment `<!-- readme-test: NAME -->` in README.md is
written to WORK/NAME. WORK is laid out like the repository root: `build` links to the build
tree, `sdk/python` to the Python package, `samples/data/lighthouse.txt` is copied, and
`sdk/models/default.amxqa` is the tiny random test model. Then the shell blocks run there in
README order (install.sh, cmake.sh, pkg-config.sh, python.sh) with `sh -e`, sharing the
environment install.sh exports. Each program's last output line must be "(no answer)" or an
exact substring of the passage (the model is random: only the property is checked).

    readme_snippets.py README BUILD_DIR SOURCE_DIR WORK_DIR MODEL

python.sh points the Python package at the installed library itself ($AMXQA_LIBRARY), so the
test runs without AMXQA_LIBRARY in its environment.
"""
import os
import re
import shutil
import subprocess
import sys

# Blocks the README must contain, and the shell blocks run, in this order.
REQUIRED = ["install.sh", "app/ask.c", "app/CMakeLists.txt", "cmake.sh", "pkg-config.sh", "ask.py", "python.sh"]
RUN = ["cmake.sh", "pkg-config.sh", "python.sh"]
SNIPPET = re.compile(r"^<!-- readme-test: (\S+) -->\n```[a-z]*\n(.*?)^```$", re.M | re.S)


def fail(msg):
    print("readme_snippets: FAIL: " + msg, file=sys.stderr)
    sys.exit(1)


def run(script, work, env):
    print("+ sh -e " + script, flush=True)
    p = subprocess.run(["sh", "-e", script], cwd=work, env=env, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True)
    sys.stdout.write(p.stdout)
    sys.stderr.write(p.stderr)
    if p.returncode != 0:
        fail("%s exited with %d" % (script, p.returncode))
    return p.stdout


def main(argv):
    if len(argv) != 6:
        print(__doc__, file=sys.stderr)
        return 2
    readme, build, source, work, model = argv[1:]
    text = open(readme, encoding="utf-8").read()
    snippets = dict((m.group(1), m.group(2)) for m in SNIPPET.finditer(text))
    missing = [n for n in REQUIRED if n not in snippets]
    if missing:
        fail("README.md lacks the marked blocks %s" % ", ".join(missing))

    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(os.path.join(work, "sdk", "models"))
    os.makedirs(os.path.join(work, "samples", "data"))
    os.symlink(os.path.abspath(build), os.path.join(work, "build"))
    os.symlink(os.path.join(source, "sdk", "python"), os.path.join(work, "sdk", "python"))
    shutil.copy(os.path.join(source, "samples", "data", "lighthouse.txt"), os.path.join(work, "samples", "data"))
    shutil.copy(model, os.path.join(work, "sdk", "models", "default.amxqa"))
    for name, body in snippets.items():
        path = os.path.join(work, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as f:
            f.write(body)

    passage = open(os.path.join(source, "samples", "data", "lighthouse.txt"), encoding="utf-8").read()
    env = dict(os.environ)
    env.pop("AMXQA_LIBRARY", None)
    env["HOME"] = work  # install.sh installs into $HOME/.local: keep it inside WORK
    # install.sh exports PREFIX; the later blocks are run in the same shell after it.
    for name in RUN:
        with open(os.path.join(work, "run-" + name), "w", encoding="utf-8") as f:
            f.write(". ./install.sh\n. ./%s\n" % name)
        out = run("run-" + name, work, env)
        lines = out.splitlines()
        answer = lines[-1] if lines else None
        if answer is None or (answer != "(no answer)" and answer not in passage):
            fail("%s: the last line is neither an answer from the passage nor (no answer): %r" % (name, out))
        print("%s: answer %r" % (name, answer))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
