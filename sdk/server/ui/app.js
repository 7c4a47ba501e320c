// app.js — the page of `amxqa serve` (GET /). It asks POST /v1/answer and
// GET /v1/model as any client does, with "Authorization: Bearer <key>" from
// the key field when the server has a key. Every text that comes from the
// passage, the model or the server goes into the page as text
// (textContent, createTextNode), never as HTML.
'use strict';

(function () {
  const $ = (id) => document.getElementById(id);
  let needsKey = false;    // a /v1/* request was refused with 401
  let modelCard = null;    // GET /v1/model's body, once read
  let answered = 0;        // answers shown: #result's data-seq (the browser test waits on it)

  // ---- the API ----

  function authHeaders() {
    const key = $('api-key').value.trim();
    return key ? { Authorization: 'Bearer ' + key } : {};
  }

  // fetch, and its JSON body (or null when it has none).
  async function call(path, init) {
    const response = await fetch(path, init);
    let body = null;
    try {
      body = await response.json();
    } catch (e) {
      body = null;
    }
    if (response.status === 401) askForKey();
    return { status: response.status, body: body };
  }

  function askForKey() {
    needsKey = true;
    $('key-row').hidden = false;
    showKeyStatus();
  }

  // ---- offsets ----

  // The API's start/end count Unicode characters (code points); a JS string
  // indexes UTF-16 units, two for a character past U+FFFF (an emoji, many
  // CJK extension characters). The UTF-16 index of character `n` of `text`:
  function utf16Index(text, n) {
    let i = 0;
    for (let c = 0; c < n && i < text.length; c++) {
      const unit = text.charCodeAt(i);
      const pair = unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length &&
                   text.charCodeAt(i + 1) >= 0xdc00 && text.charCodeAt(i + 1) <= 0xdfff;
      i += pair ? 2 : 1;
    }
    return i;
  }

  // ---- showing an answer ----

  function setText(id, text) {
    $(id).textContent = text;
  }

  function percent(p) {
    return (100 * p).toFixed(p >= 0.995 || p < 0.001 ? 2 : 1) + ' %';
  }

  function nats(x) {
    return x === null || x === undefined ? 'not finite' : x.toFixed(2);
  }

  // The passage with characters [start, end) marked (none when start == end).
  function showPassage(passage, start, end) {
    const view = $('passage-view');
    view.replaceChildren();
    view.hidden = false;
    if (end <= start) {
      view.textContent = passage;
      return;
    }
    const a = utf16Index(passage, start);
    const b = a + utf16Index(passage.slice(a), end - start);
    const mark = document.createElement('mark');
    mark.id = 'answer-mark';
    mark.textContent = passage.slice(a, b);
    view.append(document.createTextNode(passage.slice(0, a)), mark, document.createTextNode(passage.slice(b)));
    mark.scrollIntoView({ block: 'nearest' });
  }

  function showCandidates(passage, answer) {
    const list = $('candidates');
    list.replaceChildren();
    const spans = answer.candidates || [];
    $('candidates-box').hidden = spans.length < 2;
    spans.forEach(function (c) {
      const item = document.createElement('li');
      const pick = document.createElement('button');
      pick.type = 'button';
      pick.className = 'span';
      pick.textContent = c.answer;
      pick.title = 'show this span in the passage';
      pick.addEventListener('click', function () {
        showPassage(passage, c.start, c.end);
      });
      const score = document.createElement('span');
      score.className = 'score';
      score.textContent = percent(c.score);
      item.append(pick, score);
      list.append(item);
    });
  }

  function showAnswer(passage, a, ms) {
    const verdict = $('verdict');
    verdict.className = 'verdict';
    if (a.no_answer) {
      verdict.textContent = 'The passage does not say.';
      verdict.classList.add('abstained');
    } else {
      verdict.replaceChildren();
      const label = document.createElement('span');
      label.className = 'label';
      label.textContent = 'Answer: ';
      const text = document.createElement('strong');
      text.id = 'answer-text';
      text.textContent = a.answer;
      verdict.append(label, text);
    }
    setText('probability', percent(a.score) + (a.no_answer ? ' that the passage has no answer' : ''));
    const over = a.no_answer_margin !== null && a.no_answer_threshold !== null &&
                 a.no_answer_margin > a.no_answer_threshold;
    setText('margin', nats(a.no_answer_margin) + ' nats against the threshold ' + nats(a.no_answer_threshold) +
            (over ? ': above it, so it abstains' : ': not above it, so it answers'));
    let where = (a.window + 1) + ' of ' + a.windows;
    if (a.windows > 1) {
      const tokens = modelCard ? ' of at most ' + modelCard.max_passage_tokens + ' tokens' : '';
      where += ' (the passage was answered in ' + a.windows + ' overlapping windows' + tokens + ')';
    } else {
      where += ' (the whole passage)';
    }
    setText('window', where);
    setText('time', Math.round(ms) + ' ms, the round trip from this page');
    $('figures').hidden = false;
    showPassage(passage, a.no_answer ? 0 : a.start, a.no_answer ? 0 : a.end);
    showCandidates(passage, a);
  }

  function showError(status, body) {
    const verdict = $('verdict');
    verdict.className = 'verdict error';
    const e = body && body.error ? body.error : { code: 'http_' + status, message: 'the server answered ' + status };
    verdict.textContent = e.code + ': ' + e.message +
      (status === 401 ? ' (enter the API key above and ask again)' : '');
    $('figures').hidden = true;
    $('passage-view').hidden = true;
    $('candidates-box').hidden = true;
    if (status === 401) $('api-key').focus();
  }

  // ---- asking ----

  // The request's fields from the form; a string when one is unusable.
  function request() {
    const body = { question: $('question').value, context: $('passage').value };
    const k = Number($('top-k').value || '1');
    if (!Number.isInteger(k) || k < 1 || k > 100) return 'top-k must be a whole number from 1 to 100';
    body.top_k = k;
    body.windows = $('windows').checked;
    const t = $('threshold').value.trim();
    if (t !== '') {
      const x = Number(t);
      if (!Number.isFinite(x)) return 'the threshold must be a number (nats), such as 0.5 or -1e30';
      body.threshold = x;
    }
    return body;
  }

  async function ask(event) {
    event.preventDefault();
    const result = $('result');
    if (result.dataset.state === 'busy') return;
    const body = request();
    if (typeof body === 'string') {
      showError(422, { error: { code: 'invalid_field', message: body } });
      result.dataset.state = 'error';
      result.dataset.seq = String(++answered);
      return;
    }
    result.dataset.state = 'busy';
    $('ask').disabled = true;
    const t0 = performance.now();
    try {
      const r = await call('/v1/answer', {
        method: 'POST',
        headers: Object.assign({ 'Content-Type': 'application/json' }, authHeaders()),
        body: JSON.stringify(body),
      });
      const ms = performance.now() - t0;
      if (r.status === 200 && r.body) {
        showAnswer(body.context, r.body, ms);
        result.dataset.state = r.body.no_answer ? 'abstained' : 'answered';
      } else {
        showError(r.status, r.body);
        result.dataset.state = 'error';
      }
      if (r.status === 200 && !modelCard) loadModel();  // a key that works now reads the card too
    } catch (e) {
      showError(0, { error: { code: 'network', message: 'the server did not answer (' + e.message + ')' } });
      result.dataset.state = 'error';
    } finally {
      $('ask').disabled = false;
      result.dataset.seq = String(++answered);
    }
  }

  // ---- the model tab ----

  function showKeyStatus() {
    const s = $('key-status');
    if (needsKey) {
      s.textContent = 'This server needs an API key: /v1/* answers 401 without "Authorization: Bearer <key>". ' +
                      'Enter it in the key field of the Ask tab.';
      s.className = 'verdict error';
    } else if (modelCard) {
      s.textContent = 'This server needs no API key.';
      s.className = 'verdict';
    }
  }

  // A <dl> of an object's fields, nested objects as nested lists.
  function fieldList(obj) {
    const dl = document.createElement('dl');
    Object.keys(obj).forEach(function (k) {
      const dt = document.createElement('dt');
      dt.textContent = k;
      const dd = document.createElement('dd');
      const v = obj[k];
      if (v !== null && typeof v === 'object') dd.append(fieldList(v));
      else dd.textContent = typeof v === 'number' && !Number.isInteger(v) ? String(+v.toFixed(4)) : String(v);
      dl.append(dt, dd);
    });
    return dl;
  }

  async function loadModel() {
    try {
      const r = await call('/v1/model', { headers: authHeaders() });
      if (r.status !== 200 || !r.body) {
        if (r.status !== 401) setText('key-status', 'GET /v1/model answered ' + r.status);
        return;
      }
      modelCard = r.body;
      const m = r.body;
      const arch = m.arch || {};
      setText('model-summary', 'amxqa ' + m.version + ', ' + (arch.param_count || 0).toLocaleString('en') +
              ' parameters, ' + arch.weight_dtype + ' weights; no-answer threshold ' + nats(m.no_answer_threshold) +
              (m.calibrated ? ' (calibrated)' : ' (not calibrated)') + '; ' + m.workers + ' workers, passages of up to ' +
              m.max_passage_tokens + ' tokens per window.');
      $('model-card').replaceChildren(...fieldList(m).childNodes);
      if (!$('threshold').value) $('threshold').placeholder = "the model's, " + nats(m.no_answer_threshold);
      showKeyStatus();
    } catch (e) {
      setText('key-status', 'GET /v1/model failed: ' + e.message);
    }
  }

  // ---- tabs: buttons, so Tab and Enter work; the arrow keys move between them ----

  function selectTab(tab) {
    ['tab-ask', 'tab-model'].forEach(function (id) {
      const on = id === tab.id;
      $(id).setAttribute('aria-selected', on ? 'true' : 'false');
      $($(id).getAttribute('aria-controls')).hidden = !on;
    });
    if (tab.id === 'tab-model') loadModel();
  }

  function setUp() {
    ['tab-ask', 'tab-model'].forEach(function (id, i, ids) {
      $(id).addEventListener('click', function () { selectTab($(id)); });
      $(id).addEventListener('keydown', function (e) {
        if (e.key !== 'ArrowLeft' && e.key !== 'ArrowRight') return;
        const next = $(ids[(i + 1) % ids.length]);
        selectTab(next);
        next.focus();
      });
    });
    $('ask-form').addEventListener('submit', ask);
    // Ctrl+Enter (or Cmd+Enter) in the passage asks too; Enter alone is a new line there.
    $('passage').addEventListener('keydown', function (e) {
      if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) $('ask-form').requestSubmit();
    });
    $('api-key').addEventListener('change', function () {
      if (!modelCard) loadModel();
    });
    // The lighthouse sample (samples/data/lighthouse.txt, served with the page).
    fetch('/ui/lighthouse.txt').then(function (r) {
      return r.ok ? r.text() : '';
    }).then(function (text) {
      if (!$('passage').value) $('passage').value = text.trim();
      document.body.dataset.ready = 'true';
    }, function () {
      document.body.dataset.ready = 'true';
    });
    loadModel();
    $('question').focus();
  }

  setUp();
})();
