#!/usr/bin/env python3
"""CTest sdk_serve_browser.integration: the page `amxqa serve` answers GET / with, in a real
browser: Debian's headless Chromium driven by chromedriver over WebDriver (HTTP + JSON from
the standard library; no Selenium, no downloads).

    serve_browser_test.py AMXQA MODEL [SCREENSHOT.png]

Exits 77 (CTest: skipped) when `chromium` or `chromedriver` is missing: install them with
`sdk/setup-deps.sh --browser`. Starts `amxqa serve` on a free port with windows of 160
tokens and, using the keyboard only (keys sent to the focused field, Enter to ask or Tab
to the Ask button and Enter, the arrow keys between tabs), checks that the highlighted span
is exactly the API's answer (the same request sent to POST /v1/answer directly) for an
answerable question, an unanswerable one ("the passage does not say", nothing
highlighted), a non-ASCII passage (accents, CJK, and an emoji before the answer: the API's
character offsets become UTF-16 indexes) and a long passage (the window the answer came
from); that the Model tab shows GET /v1/model and whether a key is needed; that a server
with --api-key is asked through the key field; and that the page fits a phone-width
(390 px) window without sideways scrolling. SCREENSHOT gets a PNG of the answered page
(the README's is sdk/server/ui/screenshot.png: copy it there to refresh it).
"""
import base64
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

from checks import check, finish
from serve_client import Server, request

SKIP = 77
TOKENS = 160
LIGHTHOUSE = open(os.path.join(os.path.dirname(__file__), "..", "..", "..", "samples", "data", "lighthouse.txt"),
                  encoding="utf-8").read().strip()
# The emoji comes first, so every answer lies after a character of two UTF-16 units.
UNICODE = ("The café 🌊 on Plymouth Hoe serves crème brûlée beside 東京タワー posters. The lighthouse of 1759 "
           "was designed by the engineer Åsa Ødegård-Núñez.")
ELEMENT = "element-6066-11e4-a52e-4f735466cecf"  # the W3C WebDriver element reference key
ENTER = "\ue007"
TAB = "\ue004"
ARROW_RIGHT = "\ue014"
# Chromium as root on a closed network: no sandbox, no GPU, and nothing that calls home.
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--disable-dev-shm-usage", "--hide-scrollbars", "--force-device-scale-factor=1",
                 "--window-size=900,1115"]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Browser:
    """One chromedriver and one Chromium session, over WebDriver's HTTP API."""

    def __init__(self, chromium, chromedriver, profile):
        self.port = free_port()
        self.driver = subprocess.Popen([chromedriver, "--port=%d" % self.port], stdout=subprocess.DEVNULL,
                                       stderr=subprocess.DEVNULL)
        self.base = "http://127.0.0.1:%d" % self.port
        deadline = time.time() + 20
        while True:
            try:
                if self._call("GET", "/status")["ready"]:
                    break
            except OSError:
                pass
            if time.time() > deadline or self.driver.poll() is not None:
                self.driver.kill()
                sys.exit("serve_browser_test: chromedriver did not start")
            time.sleep(0.1)
        caps = {"browserName": "chrome", "goog:chromeOptions": {
            "binary": chromium, "args": CHROMIUM_ARGS + ["--user-data-dir=" + profile]}}
        self.session = self._call("POST", "/session", {"capabilities": {"alwaysMatch": caps}})["sessionId"]

    def _call(self, method, path, body=None):
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.base + path, data=data, method=method,
                                     headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=60) as r:
                return json.loads(r.read())["value"]
        except urllib.error.HTTPError as e:
            raise RuntimeError("WebDriver %s %s: %s" % (method, path, e.read()[:500].decode(errors="replace")))

    def call(self, method, path, body=None):
        return self._call(method, "/session/%s%s" % (self.session, path), body)

    def open(self, url):
        self.call("POST", "/url", {"url": url})
        self.wait("return document.body.dataset.ready === 'true' && !!document.getElementById('question')",
                  "the page to load")

    def js(self, script, *args):
        return self.call("POST", "/execute/sync", {"script": script, "args": list(args)})

    def element(self, css):
        return self.call("POST", "/element", {"using": "css selector", "value": css})[ELEMENT]

    def type(self, css, text, clear=True):
        """Keys sent to the element (WebDriver focuses it first), as a person types them."""
        e = self.element(css)
        if clear:
            self.call("POST", "/element/%s/clear" % e, {})
        self.call("POST", "/element/%s/value" % e, {"text": text})

    def keys(self, *keys):
        """Keys pressed on whatever has the focus (WebDriver actions), as a keyboard does."""
        steps = [{"type": t, "value": k} for k in keys for t in ("keyDown", "keyUp")]
        self.call("POST", "/actions", {"actions": [{"type": "key", "id": "keyboard", "actions": steps}]})

    def wait(self, script, what, timeout=30):
        deadline = time.time() + timeout
        while time.time() < deadline:
            value = self.js(script)
            if value:
                return value
            time.sleep(0.05)
        raise RuntimeError("timed out waiting for " + what)

    def screenshot(self, path):
        with open(path, "wb") as f:
            f.write(base64.b64decode(self.call("GET", "/screenshot")))

    def close(self):
        try:
            self.call("DELETE", "")
        except (OSError, RuntimeError):
            pass
        self.driver.terminate()
        try:
            self.driver.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.driver.kill()


def ask(browser, question, passage=None, threshold="", tab_to_button=False):
    """Types the question (and the threshold) and presses Enter there, or Tab to the Ask
    button and Enter on it; the page's result once shown."""
    if passage is not None:
        # The passage is set as the field's value: WebDriver cannot type characters past
        # U+FFFF (the emoji), and a long passage typed key by key only costs time.
        browser.js("const p = document.getElementById('passage'); p.value = arguments[0];"
                   "p.dispatchEvent(new Event('input'));", passage)
    browser.js("document.getElementById('options').open = true")
    browser.type("#threshold", threshold) if threshold else browser.js(
        "document.getElementById('threshold').value = ''")
    seq = browser.js("return document.getElementById('result').dataset.seq")
    if tab_to_button:
        browser.type("#question", question)
        browser.keys(TAB)
        check(browser.js("return document.activeElement.id") == "ask", "Tab from the question does not reach Ask")
        browser.keys(ENTER)
    else:
        browser.type("#question", question + ENTER)
    browser.wait("return document.getElementById('result').dataset.seq !== %s" % json.dumps(seq),
                 "the answer to %r" % question)
    return browser.js("""
        const mark = document.getElementById('answer-mark');
        const view = document.getElementById('passage-view');
        const text = (id) => document.getElementById(id).textContent;
        return {state: document.getElementById('result').dataset.state, verdict: text('verdict'),
                mark: mark ? mark.textContent : null,
                before: mark ? (mark.previousSibling ? mark.previousSibling.textContent : '') : null,
                shown: view.textContent, window: text('window'), margin: text('margin'),
                candidates: Array.from(document.querySelectorAll('#candidates .span'), (b) => b.textContent)};""")


def api(port, body, key=None):
    status, got = request(port, "POST", "/v1/answer", body,
                          headers={"Authorization": "Bearer " + key} if key else None)
    check(status == 200, "POST /v1/answer: %d %r" % (status, got))
    return got


def check_case(name, browser, port, question, passage, threshold="", expect_abstain=None, key=None,
               tab_to_button=False):
    page = ask(browser, question, passage, threshold, tab_to_button)
    body = {"question": question, "context": passage, "top_k": 3, "windows": True}
    if threshold:
        body["threshold"] = float(threshold)
    a = api(port, body, key)
    print("%s: API %r (no_answer %s, window %d of %d); page %r" % (name, a["answer"], a["no_answer"], a["window"],
                                                                  a["windows"], page["mark"]), flush=True)
    check(page["shown"] == passage, "%s: the passage shown is not the passage sent" % name)
    if expect_abstain is not None:
        check(a["no_answer"] == expect_abstain, "%s: the API's no_answer is %s" % (name, a["no_answer"]))
    if a["no_answer"]:
        check(page["state"] == "abstained" and page["mark"] is None, "%s: page %r" % (name, page))
        check("does not say" in page["verdict"], "%s: verdict %r" % (name, page["verdict"]))
        check("abstains" in page["margin"], "%s: margin %r" % (name, page["margin"]))
        return a, page
    check(page["state"] == "answered", "%s: state %r" % (name, page["state"]))
    check(page["mark"] == a["answer"], "%s: highlighted %r, the API answered %r" % (name, page["mark"], a["answer"]))
    check(page["before"] == passage[:a["start"]], "%s: the highlight does not start at character %d" % (name, a["start"]))
    check(("%d of %d" % (a["window"] + 1, a["windows"])) in page["window"], "%s: window %r" % (name, page["window"]))
    check(page["candidates"] == [c["answer"] for c in a["candidates"]] or len(a["candidates"]) < 2,
          "%s: top spans %r, the API's %r" % (name, page["candidates"], a["candidates"]))
    return a, page


def main(argv):
    if len(argv) not in (3, 4):
        print(__doc__, file=sys.stderr)
        return 2
    cli, model = argv[1:3]
    screenshot = argv[3] if len(argv) > 3 else None
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    chromedriver = shutil.which("chromedriver")
    if not chromium or not chromedriver:
        print("serve_browser_test: SKIPPED: no %s here (sdk/setup-deps.sh --browser installs Debian's chromium "
              "and chromium-driver)" % ("chromium" if not chromium else "chromedriver"))
        return SKIP
    t0 = time.time()
    profile = tempfile.mkdtemp(prefix="amxqa-chromium-")
    server = Server(cli, model, max_passage_tokens=TOKENS)
    keyed = Server(cli, model, "--api-key", "page-test-key", max_passage_tokens=TOKENS)
    browser = None
    try:
        browser = Browser(chromium, chromedriver, profile)
        url = "http://127.0.0.1:%d/" % server.port
        browser.open(url)
        check(browser.js("return document.getElementById('passage').value") == LIGHTHOUSE,
              "the passage box does not start with samples/data/lighthouse.txt")
        check(browser.js("return document.activeElement.id") == "question", "the question box is not focused")

        # Answerable: the threshold field left empty, the model's own threshold.
        q = "Who designed the present tower?"
        a, _ = check_case("answerable", browser, server.port, q, LIGHTHOUSE, expect_abstain=False)
        if screenshot:
            os.makedirs(os.path.dirname(os.path.abspath(screenshot)), exist_ok=True)
            browser.js("document.getElementById('options').open = false; window.scrollTo(0, 0)")
            browser.screenshot(screenshot)
            print("screenshot: %s (%d bytes)" % (screenshot, os.path.getsize(screenshot)))
        # Unanswerable: a threshold below any margin makes the model abstain.
        check_case("unanswerable", browser, server.port, "What colour is the sky?", LIGHTHOUSE, threshold="-1e30",
                   expect_abstain=True)
        # Non-ASCII: a threshold above any margin makes it answer, after the emoji.
        a, page = check_case("non-ASCII", browser, server.port, "Who designed the lighthouse of 1759?", UNICODE, threshold="1e38",
                             expect_abstain=False)
        # Every top span, picked from the list with the keyboard (Enter on its button), is
        # highlighted at its own characters too.
        for i, c in enumerate(a["candidates"]):
            browser.call("POST", "/element/%s/value" % browser.element("#candidates li:nth-child(%d) .span" % (i + 1)),
                         {"text": ENTER})
            got = browser.js("const m = document.getElementById('answer-mark');"
                             "return [m.textContent, m.previousSibling ? m.previousSibling.textContent : ''];")
            check(got == [c["answer"], UNICODE[:c["start"]]], "non-ASCII: top span %d highlighted as %r, not %r at %d"
                  % (i + 1, got, c["answer"], c["start"]))
        check(any(c["start"] < c["byte_start"] and "🌊" in UNICODE[:c["start"]] for c in a["candidates"]),
              "non-ASCII: no span lies after the emoji and other multi-byte characters: the test tells nothing")
        # Long: three copies of the sample are more than one window of TOKENS tokens.
        long_passage = "\n\n".join([LIGHTHOUSE] * 3)
        a, page = check_case("long", browser, server.port, q, long_passage, threshold="1e38", expect_abstain=False)
        check(a["windows"] > 1, "long: the API answered in %d window(s)" % a["windows"])

        # The Model tab, reached with the keyboard: GET /v1/model and no key needed.
        browser.type("#tab-ask", ARROW_RIGHT, clear=False)
        card = browser.wait("const s = document.getElementById('key-status').textContent;"
                            "return !document.getElementById('view-model').hidden && s &&"
                            " [s, document.getElementById('model-card').textContent];", "the Model tab")
        _, info = request(server.port, "GET", "/v1/model")
        check("needs no API key" in card[0], "model tab: %r" % card[0])
        check(info["version"] in card[1] and str(info["max_passage_tokens"]) in card[1], "model tab: %r" % card[1][:200])

        # A server with a key: the page asks for it, and sends it.
        browser.open("http://127.0.0.1:%d/" % keyed.port)
        browser.wait("return !document.getElementById('key-row').hidden", "the key field")
        browser.type("#api-key", "page-test-key")
        check_case("with a key", browser, keyed.port, q, LIGHTHOUSE, expect_abstain=False, key="page-test-key")
        browser.type("#tab-ask", ARROW_RIGHT, clear=False)
        status = browser.wait("return document.getElementById('key-status').textContent", "the key status")
        check("needs an API key" in status, "keyed model tab: %r" % status)

        # A phone's width: nothing wider than the window, the answer still shown.
        browser.call("POST", "/window/rect", {"width": 390, "height": 844})
        browser.open(url)
        check_case("phone width", browser, server.port, q, LIGHTHOUSE, expect_abstain=False, tab_to_button=True)
        widths = browser.js("return [document.documentElement.scrollWidth, window.innerWidth]")
        check(widths[0] <= widths[1], "phone width: the page is %d px wide in a %d px window" % tuple(widths))
    finally:
        if browser:
            browser.close()
        # SIGTERM, not a kill: a clean exit (and, under the sanitizers, the leak check).
        for name, srv in (("server", server), ("server with a key", keyed)):
            rc = srv.stop(signal.SIGTERM)
            check(rc == 0, "%s: exit code %r after SIGTERM" % (name, rc))
        shutil.rmtree(profile, ignore_errors=True)
    print("serve_browser_test: %.1f s" % (time.time() - t0))
    return finish("serve_browser_test")


if __name__ == "__main__":
    sys.exit(main(sys.argv))
