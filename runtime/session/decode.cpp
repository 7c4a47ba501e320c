// decode.cpp — see decode.h. The allowed list is de-duplicated with the
// view's vocabulary bitmap, whose bits are cleared again right after use,
// so a step costs O(candidates), never O(V).
#include "session/decode.h"

#include <cmath>


namespace amxqa {

bool is_ascii_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

namespace {

// Word characters for the whole-words rule: ASCII letters and digits, and
// non-ASCII code points except Latin-1 punctuation (U+0080–U+00BF: no-break
// space, « » °) and the general and CJK punctuation blocks (curly quotes,
// dashes). Those code points decide whether a span edge splits a word.
bool word_code_point(uint32_t cp) {
  if (cp < 0x80)
    return (cp >= '0' && cp <= '9') || (cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z');
  if (cp <= 0xBF) return false;
  if (cp >= 0x2000 && cp <= 0x206F) return false;
  if (cp >= 0x3000 && cp <= 0x303F) return false;
  return true;
}

// The code point whose UTF-8 starts at p[i] (a lone or broken byte counts as itself).
uint32_t code_point_at(const uint8_t* p, size_t n, size_t i) {
  const uint32_t b = p[i];
  const size_t len = b >= 0xF0 ? 4 : b >= 0xE0 ? 3 : b >= 0xC0 ? 2 : 1;
  if (len == 1 || i + len > n) return b;
  uint32_t cp = b & (0x3Fu >> (len - 1));
  for (size_t k = 1; k < len; ++k) {
    if ((p[i + k] & 0xC0) != 0x80) return b;
    cp = (cp << 6) | (p[i + k] & 0x3F);
  }
  return cp;
}

// Is there a word character right after byte offset `at` of p[0, n) / right before it?
bool word_after(const uint8_t* p, size_t n, size_t at) {
  return at < n && word_code_point(code_point_at(p, n, at));
}
bool word_before(const uint8_t* p, size_t n, size_t at) {
  if (at == 0 || at > n) return false;
  size_t i = at - 1;
  for (int k = 0; k < 3 && i > 0 && (p[i] & 0xC0) == 0x80; ++k) --i;
  return word_code_point(code_point_at(p, at, i));
}
bool word_after(const DecodeView& v, size_t at) { return word_after(v.passage, v.passage_len, at); }
bool word_before(const DecodeView& v, size_t at) { return word_before(v.passage, v.passage_len, at); }

// Under whole_words, may a span start at passage token i / end after token i?
// A span edge is allowed unless it falls between two word characters.
bool may_start(const DecodeView& v, uint32_t i) {
  if (!v.whole_words) return true;
  const size_t b = v.pass_off[i];
  return !(word_before(v, b) && word_after(v, b));
}
bool may_end(const DecodeView& v, uint32_t i) {
  if (!v.whole_words) return true;
  const size_t e = i + 1 < v.n_pass ? v.pass_off[i + 1] : v.passage_len;
  return !(word_before(v, e) && word_after(v, e));
}
// May a span start at position i: a generatable id at a word start.
bool start_ok(const DecodeView& v, uint32_t i) {
  return token_generatable(v, v.pass_ids[i]) && may_start(v, i);
}

// Appends id to v.allowed[n] unless already there; returns the new count.
size_t add_unique(DecodeView& v, size_t n, uint32_t id) {
  uint8_t& byte = v.seen[id >> 3];
  const uint8_t bit = static_cast<uint8_t>(1u << (id & 7));
  if (byte & bit) return n;
  byte |= bit;
  v.allowed[n] = id;
  return n + 1;
}

void clear_seen(DecodeView& v, size_t n) {
  for (size_t i = 0; i < n; ++i) v.seen[v.allowed[i] >> 3] = 0;
}

// The argmax over the allowed entries (ties: lower id) and its log-softmax
// over them. NaN logits (only a broken model has them) never win and are left
// out of the sum; if every logit is NaN the first allowed id is taken.
template <class Logit, class Id, class Ok>
Choice argmax_logprob(size_t n, Logit logit, Id id_of, Ok ok) {
  Choice c;
  bool have = false, any = false;
  float best = -INFINITY;
  for (size_t i = 0; i < n; ++i) {
    if (!ok(i)) continue;
    if (!any) c.id = id_of(i), any = true;
    const float z = logit(i);
    if (std::isnan(z)) continue;
    if (!have || z > best || (z == best && id_of(i) < c.id)) {
      best = z;
      c.id = id_of(i);
      have = true;
    }
  }
  if (!have) {
    c.logprob = -INFINITY;
    return c;
  }
  double sum = 0.0;
  for (size_t i = 0; i < n; ++i)
    if (ok(i) && !std::isnan(logit(i))) sum += std::exp(double(logit(i)) - double(best));
  // Never log(0): the chosen logit itself adds exp(0) = 1 (NaN, not 0, for
  // infinite logits). cppcheck does not follow the loop above.
  // cppcheck-suppress invalidFunctionArg
  c.logprob = static_cast<float>(-std::log(sum));
  return c;
}

// Step 1's no-answer decision (MODEL.md "No-answer decision"). Entry
// `null_i` is ABSTAIN; the others are the allowed answers. margin = z_null −
// z_best; ABSTAIN is chosen iff no answer is allowed or margin > tau (so tau 0
// is the plain argmax with ABSTAIN losing ties). The log-probability is over
// the allowed set with the null logit shifted by −tau: the probability of the
// decision as the threshold makes it. NaN logits never win and are left out.
template <class Logit, class Id, class Ok>
Choice decide_first(size_t n, size_t null_i, float tau, Logit logit, Id id_of, Ok ok) {
  Choice c;
  bool have = false;
  size_t best_i = null_i;
  float best = -INFINITY;
  for (size_t i = 0; i < n; ++i) {
    if (i == null_i || !ok(i)) continue;
    const float z = logit(i);
    if (std::isnan(z)) continue;
    if (!have || z > best || (z == best && id_of(i) < id_of(best_i))) {
      best = z;
      best_i = i;
      have = true;
    }
  }
  const float zn = logit(null_i);
  if (!have) {  // nothing else is allowed: abstaining is certain
    c.id = id_of(null_i);
    c.no_answer_margin = INFINITY;
    return c;
  }
  c.no_answer_margin = std::isnan(zn) ? -INFINITY : zn - best;
  const bool abstain = c.no_answer_margin > tau;
  c.id = id_of(abstain ? null_i : best_i);
  const double shifted = std::isnan(zn) ? -INFINITY : double(zn) - double(tau);
  const double top = abstain ? shifted : double(best);
  double sum = std::exp(shifted - top);  // 0 for tau = +INFINITY
  for (size_t i = 0; i < n; ++i)
    if (i != null_i && ok(i) && !std::isnan(logit(i))) sum += std::exp(double(logit(i)) - top);
  // cppcheck-suppress invalidFunctionArg  (sum >= 1: the chosen entry adds exp(0))
  c.logprob = static_cast<float>(-std::log(sum));
  return c;
}

}  // namespace

bool token_generatable(const DecodeView& v, uint32_t id) {
  const amxqa_model& m = *v.model;
  if (id >= m.vocab_size) return false;
  if (id == m.pad || id == m.bos || id == m.ans || id == m.eot || id == m.abstain) return false;
  return !v.use_vocab_mask || vocab_allowed(m, id);
}

size_t allowed_first(DecodeView& v, size_t* n_span) {
  size_t n = 0;
  for (uint32_t i = 0; i < v.n_pass; ++i)
    if (start_ok(v, i)) n = add_unique(v, n, v.pass_ids[i]);
  clear_seen(v, n);
  *n_span = n;
  v.allowed[n++] = v.model->abstain;
  return n;
}

size_t allowed_next(DecodeView& v, uint32_t n_cand, size_t* n_span) {
  size_t n = 0;
  bool can_end = false;
  for (uint32_t c = 0; c < n_cand; ++c) {
    const uint32_t i = v.cand[c] + 1;
    if (i < v.n_pass && token_generatable(v, v.pass_ids[i])) n = add_unique(v, n, v.pass_ids[i]);
    can_end = can_end || may_end(v, v.cand[c]);
  }
  clear_seen(v, n);
  *n_span = n;
  // No continuation at all stops decoding whatever EOT's status (answer.cpp).
  if (can_end) v.allowed[n++] = v.model->eot;
  return n;
}

Choice pick_start(DecodeView& v, uint32_t* n_cand, float tau) {
  const uint32_t n_pass = v.n_pass;
  const float* z = v.pass_z;  // [0, n_pass): positions, [n_pass]: ABSTAIN
  // Index order breaks ties: the earlier position first.
  Choice c = decide_first(
      size_t(n_pass) + 1, n_pass, tau, [&](size_t i) { return z[i]; },
      [](size_t i) { return uint32_t(i); }, [&](size_t i) { return start_ok(v, uint32_t(i)); });
  const uint32_t at = c.id;
  c.id = at == n_pass ? v.model->abstain : v.pass_ids[at];
  v.cand[0] = at;
  *n_cand = at == n_pass ? 0 : 1;
  return c;
}

Choice pick_end(DecodeView& v, const float* xn, uint32_t start, uint32_t* n_tokens) {
  const size_t d = v.d;
  // Reachable ends: the id rule's continuations (generatable tokens), at most
  // max_answer_tokens in all; their scores go into v.scores (V >= 261 floats).
  uint32_t hi = start + 1;
  const uint32_t cap = v.max_answer_tokens < v.V ? v.max_answer_tokens : v.V;
  while (hi < v.n_pass && hi - start < cap && token_generatable(v, v.pass_ids[hi])) ++hi;
  float* z = v.scores;
  for (uint32_t j = start; j < hi; ++j) z[j - start] = 0.f;
  v.kernels->dot_rows(v.pass_u + size_t(start) * d, d, hi - start, xn, d, z);
  Choice c = argmax_logprob(
      hi - start, [&](size_t i) { return z[i]; }, [](size_t i) { return uint32_t(i); },
      [&](size_t i) { return may_end(v, start + uint32_t(i)); });
  // No allowed end (nothing ends a word in reach): the span runs to the last
  // reachable token, as the id rule does when EOT is never allowed.
  bool any = false;
  for (uint32_t j = start; j < hi && !any; ++j) any = may_end(v, j);
  const uint32_t end = any ? start + c.id : hi - 1;
  if (!any) c.logprob = 0.f;
  c.id = v.pass_ids[end];
  v.cand[0] = end;
  *n_tokens = end - start + 1;
  return c;
}

uint32_t next_start(const DecodeView& v, uint32_t prev) {
  const float* z = v.pass_z;
  const float zp = z[prev];
  uint32_t best = v.n_pass;
  for (uint32_t i = 0; i < v.n_pass; ++i) {
    const float zi = z[i];
    // Strictly after prev in (score descending, position ascending) order.
    if (i == prev || std::isnan(zi) || zi > zp || (zi == zp && i < prev)) continue;
    if (best != v.n_pass && !(zi > z[best])) continue;  // ties keep the earlier position
    if (start_ok(v, i)) best = i;
  }
  return best;
}
bool window_edge_ok(const uint8_t* p, size_t n, size_t at) {
  if (at > 0 && at < n && (p[at] & 0xC0) == 0x80) return false;
  return !(word_before(p, n, at) && word_after(p, n, at));
}

Choice pick_allowed(const uint32_t* ids, const float* logits, size_t n) {
  return argmax_logprob(
      n, [&](size_t i) { return logits[i]; }, [&](size_t i) { return ids[i]; },
      [](size_t) { return true; });
}

Choice pick_first(const uint32_t* ids, const float* logits, size_t n, float tau) {
  return decide_first(
      n, n - 1, tau, [&](size_t i) { return logits[i]; }, [&](size_t i) { return ids[i]; },
      [](size_t) { return true; });
}

Choice pick_free(const DecodeView& v, const float* logits, uint32_t step, float tau) {
  const uint32_t terminal = step == 1 ? v.model->abstain : v.model->eot;
  if (step == 1)
    return decide_first(
        v.V, terminal, tau, [&](size_t i) { return logits[i]; },
        [](size_t i) { return uint32_t(i); }, [&](size_t i) { return token_generatable(v, uint32_t(i)); });
  return argmax_logprob(
      v.V, [&](size_t i) { return logits[i]; }, [](size_t i) { return uint32_t(i); },
      [&](size_t i) { return i == terminal || token_generatable(v, uint32_t(i)); });
}

uint32_t candidates_first(DecodeView& v, uint32_t id) {
  uint32_t n = 0;
  for (uint32_t i = 0; i < v.n_pass; ++i)
    if (v.pass_ids[i] == id && may_start(v, i)) v.cand[n++] = i;
  return n;
}

uint32_t candidates_next(DecodeView& v, uint32_t n_cand, uint32_t id) {
  uint32_t n = 0;
  for (uint32_t c = 0; c < n_cand; ++c) {
    const uint32_t i = v.cand[c] + 1;
    if (i < v.n_pass && v.pass_ids[i] == id) v.cand[n++] = i;
  }
  return n;
}

Span candidate_span(const DecodeView& v, uint32_t n_tokens) {
  const char* passage = reinterpret_cast<const char*>(v.passage);
  const size_t plen = v.passage_len;
  Span sp;
  const uint32_t last = v.cand[0];  // candidates stay ascending: cand[0] is the earliest
  const uint32_t first = last + 1 - n_tokens;
  sp.begin = v.pass_off[first];
  sp.end = last + 1 < v.n_pass ? v.pass_off[last + 1] : plen;
  // Byte-level tokens may split a UTF-8 character; a span never does: its
  // edges widen to whole characters (at most 3 bytes each way), so answers
  // are valid UTF-8 wherever the passage is.
  auto continuation = [&](uint64_t i) { return (static_cast<uint8_t>(passage[i]) & 0xC0) == 0x80; };
  for (int k = 0; k < 3 && sp.begin > 0 && sp.begin < plen && continuation(sp.begin); ++k) --sp.begin;
  for (int k = 0; k < 3 && sp.end < plen && continuation(sp.end); ++k) ++sp.end;
  while (sp.begin < sp.end && is_ascii_space(passage[sp.begin])) ++sp.begin;
  while (sp.end > sp.begin && is_ascii_space(passage[sp.end - 1])) --sp.end;
  return sp;
}

}  // namespace amxqa
