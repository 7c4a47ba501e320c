#!/usr/bin/env python3
"""CTest readme_snippets.integration: the README's "Use it from your app" code, as written.

Every fenced block preceded by an HTML comment `<!-- readme-test: NAME -->` in README.md is
written to WORK/NAME. WORK is laid out like the repository root: `build` links to the build
tree, `sdk/python` to the Python package, `samples/data/lighthouse.txt` is copied, and
`sdk/models/default.amxqa` is the tiny random test model. Then the shell blocks run there in
README order (install.sh, cmake.sh, pkg-config.sh, cpp.sh, python.sh) with `sh -e`, sharing the
environment install.sh exports. Each program's last output line must be "(no answer)" or an
exact substring of the passage (the model is random: only the property is checked).

    readme_snippets.py README BUILD_DIR SOURCE_DIR WORK_DIR MODEL

python.sh points the Python package at the installed library itself ($AMXQA_LIBRARY), so the
test runs without AMXQA_LIBRARY in its environment.

    readme_snippets.py --calibration README BUILD_DIR SOURCE_DIR WORK_DIR

(CTest readme_calibration.integration) runs calibrate.sh with the shipped model and
SOURCE_DIR/../shared/data, and requires the threshold it writes to be the shipped model's,
best.threshold of sdk/models/calibration.json; SKIPPED where the data is absent. pip.sh is run
by sdk_python_pip.integration (sdk/tests/python_pip_check.cmake), which builds libamxqa anyway.

cli.sh needs no install either; its last line (`amxqa answer`) must be an exact substring of the
passage (an empty line when the model abstains).

The CLI blocks (serve.sh, batch.sh, dask.sh) need no install and run on their own, serve.sh
with $PORT set to a free port, dask.sh with $PYTHON a python3 that imports dask.distributed;
their last lines must be the JSON answers they document. serve.sh is skipped (and says so)
where curl is missing (curl is not a build dependency), dask.sh where no python3 has Dask.
"""
import json
import os
import re
import shutil
import socket
import subprocess
import sys

# Blocks the README must contain, and the shell blocks run, in this order.
REQUIRED = ["install.sh", "app/ask.c", "app/CMakeLists.txt", "cmake.sh", "pkg-config.sh", "app/ask.cpp", "cpp.sh",
            "pip.sh", "ask.py", "python.sh", "cli.sh", "calibrate.sh", "serve.sh", "batch.sh", "dask.sh"]
RUN = ["cmake.sh", "pkg-config.sh", "cpp.sh", "python.sh"]
# CLI blocks, run without the install: how many JSON answer lines end their output.
# dask.sh answers batch.sh's questions.jsonl, so it runs after it.
CLI_RUN = {"serve.sh": 1, "batch.sh": 2, "dask.sh": 2}
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


def dask_python():
    """Debian's python3 first (python3-distributed installs for it, not for another
    python3 earlier on PATH), else python3; "" when neither imports dask.distributed."""
    for exe in ("/usr/bin/python3", shutil.which("python3") or ""):
        if exe and subprocess.run([exe, "-c", "import dask.distributed"], capture_output=True).returncode == 0:
            return exe
    return ""


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def check_json_answers(name, out, count, passage):
    """The last `count` lines are JSON answers: a span of the passage, or no answer."""
    lines = out.splitlines()[-count:]
    for line in lines:
        try:
            a = json.loads(line)
        except ValueError:
            fail("%s: %r is not a JSON answer" % (name, line))
        if not isinstance(a, dict) or "answer" not in a or (not a.get("no_answer") and a["answer"] not in passage):
            fail("%s: %r is neither an answer from the passage nor no_answer" % (name, line))
    if len(lines) != count:
        fail("%s: expected %d answer lines, got %r" % (name, count, out))
    print("%s: %s" % (name, " | ".join(lines)))


def calibration(argv):
    """calibrate.sh with the shipped model reproduces the shipped threshold."""
    readme, build, source, work = argv
    data = os.path.join(source, "..", "shared", "data", "squad", "dev-v2.0-calib.json.gz")
    if not os.path.isfile(data):
        print("SKIPPED: no %s" % data)
        return 0
    text = open(readme, encoding="utf-8").read()
    block = dict((m.group(1), m.group(2)) for m in SNIPPET.finditer(text)).get("calibrate.sh")
    if block is None:
        fail("README.md lacks the marked block calibrate.sh")
    shutil.rmtree(work, ignore_errors=True)
    repo = os.path.join(work, "repo")  # laid out as the checkout, with ../shared beside it
    os.makedirs(os.path.join(repo, "samples"))
    os.symlink(os.path.abspath(build), os.path.join(repo, "build"))
    os.symlink(os.path.join(source, "sdk"), os.path.join(repo, "sdk"))
    os.symlink(os.path.join(source, "samples", "data"), os.path.join(repo, "samples", "data"))
    os.symlink(os.path.abspath(os.path.join(source, "..", "shared")), os.path.join(work, "shared"))
    with open(os.path.join(repo, "calibrate.sh"), "w", encoding="utf-8") as f:
        f.write(block)
    run("calibrate.sh", repo, dict(os.environ))
    got = json.load(open(os.path.join(repo, "thresholds.json"), encoding="utf-8"))["best"]["threshold"]
    shipped = json.load(open(os.path.join(source, "sdk", "models", "calibration.json"), encoding="utf-8"))
    want = shipped["best"]["threshold"]
    if abs(got - want) > 1e-6:
        fail("calibrate.sh chose %r; the shipped model's threshold (sdk/models/calibration.json, %s) is %r"
             % (got, shipped.get("method"), want))
    print("calibrate.sh: threshold %r, the shipped model's (%s)" % (got, shipped.get("method")))
    return 0


def main(argv):
    if len(argv) == 6 and argv[1] == "--calibration":
        return calibration(argv[2:])
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
    os.symlink(os.path.join(source, "samples", "python"), os.path.join(work, "samples", "python"))
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
    out = run("cli.sh", work, env).splitlines()
    answer = out[-1] if out else None
    if answer is None or answer not in passage:
        fail("cli.sh: the last line is not an answer from the passage (or empty): %r" % out)
    print("cli.sh: answer %r" % answer)
    for name, count in CLI_RUN.items():
        if name == "serve.sh" and not shutil.which("curl"):
            print("%s: SKIPPED: no curl on PATH" % name)
            continue
        if name == "dask.sh" and not dask_python():
            print("%s: SKIPPED: no python3 here imports dask.distributed" % name)
            continue
        check_json_answers(name, run(name, work, dict(env, PORT=str(free_port()), PYTHON=dask_python())), count,
                           passage)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
