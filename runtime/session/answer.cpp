// answer.cpp — amxqa_answer() and amxqa_answer_stream(): tokenise, build the
// prompt (BOS question "\n\n" passage ANS, schemas/MODEL.md "Prompt format";
// with the question re-read, the separator and question again before ANS),
// prefill it in blocks, then decode greedily under the extractive constraint
// (or freely). Both entry points share one runner; they differ only in where
// the answer goes. Nothing here allocates: every buffer is in the session.
#include <cmath>
#include <cstddef>
#include <cstring>
#include <ctime>

#include "amxqa.h"
#include "api/errors.h"
#include "api/struct_size.h"
#include "ops/ops.h"
#include "session/decode.h"
#include "session/forward.h"
#include "session/passage_reader.h"
#include "session/session.h"
#include "tokenizer/tokenizer.h"

namespace amxqa {
namespace {

uint64_t now_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return uint64_t(ts.tv_sec) * 1000000000ull + uint64_t(ts.tv_nsec);
}

// A question of only ASCII white space (or none) asks nothing.
bool all_space(const char* q, size_t n) {
  for (size_t i = 0; i < n; ++i)
    if (!is_ascii_space(q[i])) return false;
  return true;
}

// Where answer bytes go: a streaming callback, or nothing until the end.
struct Sink {
  amxqa_token_fn on_token = nullptr;
  void* user = nullptr;
};

struct Question {
  const char* q;
  size_t qlen;
  const char* p;
  size_t plen;
};

// Rows the question re-read adds after the passage (MODEL.md "Question
// re-read"): sep… q… again, so the question's tokens attend over the passage.
size_t reread_rows(const amxqa_session* s, uint32_t nq) {
  return s->model->question_reread ? size_t(s->n_sep) + nq : 0;
}

// Token i of the prompt BOS q… sep… p… ANS, or BOS q… sep… p… sep… q… ANS
// with the question re-read (MODEL.md "Prompt format").
uint32_t prompt_token(const amxqa_session* s, size_t i, uint32_t nq, uint32_t np) {
  if (i == 0) return s->model->bos;
  i -= 1;
  if (i < nq) return s->q_ids[i];
  i -= nq;
  if (i < s->n_sep) return s->sep_ids[i];
  i -= s->n_sep;
  if (i < np) return s->pass_ids[i];
  i -= np;
  if (i < reread_rows(s, nq)) return i < s->n_sep ? s->sep_ids[i] : s->q_ids[i - s->n_sep];
  return s->model->ans;
}

void prefill_prompt(amxqa_session* s, uint32_t nq, uint32_t np) {
  const size_t total = size_t(1) + nq + s->n_sep + np + reread_rows(s, nq) + 1;
  const size_t pass_begin = size_t(1) + nq + s->n_sep, pass_end = pass_begin + np;
  forward_reset(s);
  uint8_t match[kPrefillRows];
  for (size_t i = 0; i < total; i += kPrefillRows) {
    const uint32_t m = static_cast<uint32_t>(total - i < kPrefillRows ? total - i : kPrefillRows);
    for (uint32_t t = 0; t < m; ++t) {
      s->blk.ids[t] = prompt_token(s, i + t, nq, np);
      match[t] = 0;
    }
    // The block's passage rows [lo, hi) of the prompt.
    const size_t lo = i > pass_begin ? i : pass_begin, hi = i + m < pass_end ? i + m : pass_end;
    if (s->model->question_match && lo < hi)  // MODEL.md "Question match"
      ops::question_match(s->q_ids, nq, s->sep_ids, s->n_sep, s->blk.ids + (lo - i), hi - lo,
                          match + (lo - i));
    forward_rows(s, s->blk.ids, m, nullptr, match);
    // Start pointer: keep each passage token's final-normed state for step 1.
    if (s->pass_u && lo < hi)
      final_norm_rows(s, static_cast<uint32_t>(lo - i), static_cast<uint32_t>(hi - lo),
                      s->pass_u + (lo - pass_begin) * s->dim.d);
  }
  read_passage(s, np);  // MODEL.md "Passage reader": the keys read both sides
}

// The decoding rules' view of window `in` (n_pass tokens in s->pass_ids).
DecodeView decode_view(amxqa_session* s, const Question& in, uint32_t n_pass) {
  DecodeView v;
  v.model = s->model;
  v.kernels = s->kernels;
  v.d = s->dim.d;
  v.V = s->dim.V;
  v.max_answer_tokens = s->opt.max_answer_tokens;
  v.use_vocab_mask = s->opt.use_vocab_mask != 0;
  v.whole_words = s->opt.whole_words != 0;
  v.pass_ids = s->pass_ids;
  v.pass_off = s->pass_off;
  v.n_pass = n_pass;
  v.passage = reinterpret_cast<const uint8_t*>(in.p);
  v.passage_len = in.plen;
  v.pass_u = s->pass_u;
  v.cand = s->cand;
  v.allowed = s->allowed;
  v.seen = s->seen;
  v.pass_z = s->pass_z;
  v.scores = s->logits;
  return v;
}

// Step 1's scores of a start-pointer model (MODEL.md "Start pointer"):
// z[i] = xn · (tok_emb[t_i] + pass_u[i]) for each position, z[n] = xn ·
// tok_emb[ABSTAIN], plus xn · (W u) with the no-answer head (MODEL.md
// "No-answer head": pooled over all n positions), in s->pass_z for
// pick_start. Same bits on every ISA.
void score_starts(amxqa_session* s, uint32_t n) {
  float* z = s->pass_z;
  const size_t d = s->dim.d;
  readout_rows(s, s->pass_ids, n, z);
  s->kernels->dot_rows(s->pass_u, d, n, s->blk.xn, d, z);
  const uint32_t abstain = s->model->abstain;
  readout_rows(s, &abstain, 1, z + n);
  if (s->na_pool) {
    float* p = s->na_pool;
    std::memcpy(p, z, size_t(n) * sizeof(float));
    z[n] += ops::no_answer_head(s->model->no_answer_w, s->blk.xn, s->pass_u, d, n, d, p, p + n,
                                p + n + d);
  }
}

struct Outcome {
  uint32_t answer_tokens = 0, n_cand = 0;
  bool abstained = false, eot = false, cancelled = false;
  double logprob_sum = 0.0;
  float no_answer_margin = 0.f;  // step 1's (MODEL.md "No-answer decision")
  float first_logprob = 0.f;     // step 1's log-probability
  uint32_t steps = 0;
};

// The stop rules of both decoding modes (MODEL.md "Decoding"): records step
// `step`'s choice and says whether decoding ends on it: ABSTAIN at step 1
// (unless the start was forced), EOT at any later step.
bool stops_on(Outcome& r, const amxqa_model& m, uint32_t step, const Choice& c, bool forced) {
  if (step == 1) r.no_answer_margin = c.no_answer_margin, r.first_logprob = c.logprob;
  r.logprob_sum += c.logprob;
  r.steps = step;
  if (step == 1 && c.id == m.abstain && !forced) return r.abstained = true;
  if (step > 1 && c.id == m.eot) return r.eot = true;
  return false;
}

// Hands one emitted token's bytes to the sink; true when the caller cancels.
bool emit(Outcome& r, const Sink& sink, const char* bytes, size_t len) {
  if (sink.on_token && sink.on_token(sink.user, bytes, len)) return r.cancelled = true;
  return false;
}

// Emits passage token i (its bytes in the window).
bool emit_passage(Outcome& r, const Sink& sink, const DecodeView& v, uint32_t i) {
  const size_t end = i + 1 < v.n_pass ? v.pass_off[i + 1] : v.passage_len;
  return emit(r, sink, reinterpret_cast<const char*>(v.passage) + v.pass_off[i],
              end - v.pass_off[i]);
}

// Top-k: a start position decoded instead of pick_start's choice, with its
// step-1 log-probability (over the same allowed set, threshold applied).
struct Forced {
  uint32_t at = 0;
  float logprob = 0.f;
};

// Extractive greedy decoding (MODEL.md "Decoding"): the logits after ANS are
// already in s->blk.xn (not read with `forced`: step 1 is given). One token
// per step: choose (pointer, end pointer, or the allowed ids' readout), stop
// or take it, emit it, feed it.
Outcome decode_extractive(amxqa_session* s, DecodeView& v, const Sink& sink,
                          const Forced* forced = nullptr) {
  Outcome r;
  const bool pointer = s->pass_u != nullptr;
  const bool end_pointer = pointer && s->model->end_pointer;
  for (uint32_t step = 1;; ++step) {
    if (step > 1 && r.answer_tokens == v.max_answer_tokens) break;
    Choice c;
    if (step == 1 && pointer) {  // the start is a position; pick_start sets the candidate
      if (forced) {
        c.id = v.pass_ids[forced->at];
        c.logprob = forced->logprob;
        v.cand[0] = forced->at;
        r.n_cand = 1;
      } else {
        score_starts(s, v.n_pass);
        c = pick_start(v, &r.n_cand, s->no_answer_threshold);
      }
    } else if (step == 2 && end_pointer) {
      // End pointer (MODEL.md "End pointer"): one decode step on t_start,
      // then the span's last position; the span is complete.
      const uint32_t start = v.cand[0];
      decode_step(s, s->ans_ids[0]);
      uint32_t n_tokens = 0;
      c = pick_end(v, s->blk.xn, start, &n_tokens);
      stops_on(r, *s->model, step, c, false);
      r.eot = true;
      for (uint32_t i = start + 1; i < start + n_tokens; ++i) {
        s->ans_ids[r.answer_tokens++] = v.pass_ids[i];
        if (emit_passage(r, sink, v, i)) {
          v.cand[0] = i;  // the span streamed so far ends here
          break;
        }
      }
      break;
    } else {
      size_t n_span = 0, na = 0;
      if (step == 1) {
        na = allowed_first(v, &n_span);
      } else {
        na = allowed_next(v, r.n_cand, &n_span);
        if (n_span == 0) break;  // no passage token continues the span
        decode_step(s, s->ans_ids[r.answer_tokens - 1]);
      }
      readout_rows(s, v.allowed, na, s->logits);
      c = step == 1 ? pick_first(v.allowed, s->logits, na, s->no_answer_threshold)
                    : pick_allowed(v.allowed, s->logits, na);
    }
    if (stops_on(r, *s->model, step, c, forced != nullptr)) break;
    if (!(step == 1 && pointer))
      r.n_cand = step == 1 ? candidates_first(v, c.id) : candidates_next(v, r.n_cand, c.id);
    s->ans_ids[r.answer_tokens++] = c.id;
    if (emit_passage(r, sink, v, v.cand[0])) break;
  }
  return r;
}

// Free-mode greedy decoding: every unmasked id (ABSTAIN at step 1, EOT later).
Outcome decode_free(amxqa_session* s, const DecodeView& v, const Sink& sink) {
  Outcome r;
  for (uint32_t step = 1;; ++step) {
    if (step > 1) {
      if (r.answer_tokens == v.max_answer_tokens) break;
      decode_step(s, s->ans_ids[r.answer_tokens - 1]);
    }
    readout_all(s, s->logits);
    const Choice c = pick_free(v, s->logits, step, s->no_answer_threshold);
    if (stops_on(r, *s->model, step, c, false)) break;
    s->ans_ids[r.answer_tokens++] = c.id;
    size_t len = 0;
    const uint8_t* bytes = token_bytes(s->model->tok, c.id, &len);
    if (emit(r, sink, reinterpret_cast<const char*>(bytes), len)) break;
  }
  return r;
}

// Copies as much of src as fits (leaving room for the NUL) at out[*used].
void append_out(char* out, size_t outcap, size_t* used, const void* src, size_t len) {
  if (outcap > 0 && *used < outcap - 1) {
    const size_t room = outcap - 1 - *used;
    std::memcpy(out + *used, src, len < room ? len : room);
  }
  *used += len;
}

// Writes the answer into out; returns false when it did not fit.
bool write_answer(const amxqa_session* s, const Question& in, const amxqa_answer_info& info,
                  const Outcome& r, char* out, size_t outcap) {
  size_t used = 0;
  if (!info.abstained) {
    if (s->opt.extractive) {
      append_out(out, outcap, &used, in.p + info.span_begin, info.span_end - info.span_begin);
    } else {
      for (uint32_t t = 0; t < r.answer_tokens; ++t) {
        size_t len = 0;
        const uint8_t* bytes = token_bytes(s->model->tok, s->ans_ids[t], &len);
        append_out(out, outcap, &used, bytes, len);
      }
    }
  }
  if (outcap == 0) return false;
  out[used < outcap - 1 ? used : outcap - 1] = '\0';
  return used < outcap;
}

// Top-k (MODEL.md "Top-k spans and windows"): the caller's amxqa_span array,
// stride spans[0].struct_size, kept as the `cap` best distinct spans offered
// so far by score (ties: the one offered first). Only sizeof(amxqa_span)
// bytes of each element are ever written.
struct SpanList {
  uint8_t* base = nullptr;
  size_t stride = 0, cap = 0, n = 0;

  amxqa_span at(size_t i) const {
    amxqa_span v;
    std::memcpy(&v, base + i * stride, sizeof v);
    return v;
  }
  void put(size_t i, amxqa_span v) {
    v.struct_size = static_cast<uint32_t>(stride);
    std::memcpy(base + i * stride, &v, sizeof v);
  }
  void erase_same(const amxqa_span& v) {
    for (size_t i = 0; i < n; ++i) {
      const amxqa_span e = at(i);
      if (e.begin != v.begin || e.end != v.end) continue;
      for (; i + 1 < n; ++i) put(i, at(i + 1));
      --n;
      return;
    }
  }
  void insert(size_t i, const amxqa_span& v) {  // n < cap
    for (size_t j = n; j > i; --j) put(j, at(j - 1));
    put(i, v);
    ++n;
  }
  void offer(const amxqa_span& v) {
    for (size_t i = 0; i < n; ++i) {
      const amxqa_span e = at(i);
      if (e.begin == v.begin && e.end == v.end) {
        if (!(v.score > e.score)) return;  // the same span: keep the better score
        erase_same(e);
        break;
      }
    }
    size_t i = n;
    while (i > 0 && at(i - 1).score < v.score) --i;
    if (i == cap) return;
    if (n == cap) --n;
    insert(i, v);
  }
  // The answer first, then the cap − 1 best other spans.
  void finish(const amxqa_span& answer) {
    erase_same(answer);
    if (n == cap) --n;
    insert(0, answer);
  }
};

// One window's greedy answer (spans in whole-passage bytes).
struct Answered {
  Outcome r;
  Span span;
  float probability = 0.f;
  uint32_t window = 0;
  uint64_t prefill_ns = 0, decode_ns = 0;
};

amxqa_span span_of(const Span& sp, float score, uint32_t window, uint32_t tokens) {
  amxqa_span v;
  std::memset(&v, 0, sizeof v);
  v.score = score;
  v.begin = sp.begin;
  v.end = sp.end;
  v.window = window;
  v.answer_tokens = tokens;
  return v;
}

// Answers one window: the passage bytes in.p[0, in.plen) (at byte `base` of
// the whole passage) whose n tokens are in s->pass_ids / pass_off. With a
// span list, offers the greedy span and, on a top-k session, the spans of
// the next list->cap − 1 allowed starts, each decoded from the state after
// prefill.
Answered answer_window(amxqa_session* s, const Question& in, uint32_t nq, uint32_t n,
                       const Sink& sink, SpanList* list, uint64_t base, uint32_t window) {
  DecodeView v = decode_view(s, in, n);
  Answered a;
  a.window = window;
  const uint64_t t0 = now_ns();
  prefill_prompt(s, nq, n);
  const uint64_t t1 = now_ns();
  const bool more = list && list->cap > 1 && s->snap && s->opt.extractive;
  if (more) forward_save(s);
  a.r = s->opt.extractive ? decode_extractive(s, v, sink) : decode_free(s, v, sink);
  // The product of the emitted steps' probabilities, step 1 under the
  // threshold (MODEL.md "No-answer decision").
  a.probability = static_cast<float>(std::exp(a.r.logprob_sum));
  if (s->opt.extractive && !a.r.abstained && a.r.answer_tokens > 0) {
    a.span = candidate_span(v, a.r.answer_tokens);
    a.span.begin += base;
    a.span.end += base;
  }
  // A span of only white space trims to nothing: that is no answer, so it is
  // reported as one (amxqa.h amxqa_answer), never as an empty answer.
  if (s->opt.extractive && !a.r.abstained && !a.r.cancelled && a.span.begin == a.span.end) {
    a.r.abstained = true;
    a.span = Span{};
    a.probability = 1.f - a.probability;
  }
  if (list && s->opt.extractive && !a.r.abstained && !a.r.cancelled) {
    list->offer(span_of(a.span, a.probability, window, a.r.answer_tokens));
    if (more && a.r.answer_tokens > 0) {
      // With the pointer the greedy span is one candidate: its start is
      // cand[0] − (tokens − 1). Further starts follow in pick_start's order.
      const uint32_t first = s->cand[0] + 1 - a.r.answer_tokens;
      uint32_t prev = first;
      for (size_t j = 1; j < list->cap; ++j) {
        const uint32_t at = next_start(v, prev);
        if (at == n) break;
        prev = at;
        forward_restore(s);
        Forced f;
        f.at = at;
        f.logprob = static_cast<float>(double(s->pass_z[at]) - double(s->pass_z[first]) +
                                       double(a.r.first_logprob));
        const Outcome o = decode_extractive(s, v, Sink{}, &f);
        Span sp = candidate_span(v, o.answer_tokens);
        if (sp.begin == sp.end) continue;  // only white space: no answer to offer
        sp.begin += base;
        sp.end += base;
        list->offer(span_of(sp, static_cast<float>(std::exp(o.logprob_sum)), window, o.answer_tokens));
      }
    }
  }
  a.prefill_ns = t1 - t0;
  a.decode_ns = now_ns() - t1;
  return a;
}

// Is window answer a better than b (amxqa.h "Long passages")? An answer beats
// an abstention; answers compare by score, abstentions by the smaller margin;
// ties keep the earlier window.
bool better(const Answered& a, const Answered& b) {
  if (a.r.abstained != b.r.abstained) return !a.r.abstained;
  if (!a.r.abstained) return a.probability > b.probability;
  return a.r.no_answer_margin < b.r.no_answer_margin;
}

// Window edges move back at most this many tokens to a word boundary.
uint32_t edge_search(uint32_t tokens) { return tokens / 4 < 64 ? tokens / 4 : 64; }

// Answers a passage over the token cap in overlapping windows (amxqa.h "Long
// passages"); returns the best window's answer, with times summed and
// *windows set. Each window's text is encoded afresh from its first byte.
Answered answer_windows(amxqa_session* s, const Question& in, uint32_t nq, SpanList* list,
                        uint32_t* windows) {
  const amxqa_model& m = *s->model;
  const auto* P = reinterpret_cast<const uint8_t*>(in.p);
  const uint32_t cap = s->opt.max_passage_tokens;
  // Encoding stops early: cap tokens never span more than cap · max_piece_len
  // bytes, and text cut further on changes only the chunks (≤ kMaxChunkLen
  // bytes) around the cut.
  const size_t piece = m.tok.max_piece_len ? m.tok.max_piece_len : 1;
  const size_t lookahead = size_t(cap) * piece + 2 * size_t(kMaxChunkLen) + 2;
  Answered best;
  uint64_t prefill = 0, decode = 0;
  size_t b = 0;
  for (uint32_t w = 0;; ++w) {
    const size_t rest = in.plen - b, len_in = rest < lookahead ? rest : lookahead;
    const size_t need = encode(m.tok, in.p + b, len_in, s->pass_ids, s->pass_off, cap);
    const bool last = need <= cap && len_in == rest;
    uint32_t n = static_cast<uint32_t>(need < cap ? need : cap);  // >= 1: rest > 0
    size_t wlen = rest;
    if (!last) {
      size_t len = 0;
      token_bytes(m.tok, s->pass_ids[n - 1], &len);
      wlen = s->pass_off[n - 1] + len;
      if (!window_edge_ok(P, in.plen, b + wlen)) {
        const uint32_t stop = n - edge_search(n);
        for (uint32_t t = n - 1; t > 0 && t >= stop; --t)
          if (window_edge_ok(P, in.plen, b + s->pass_off[t])) {
            n = t;
            wlen = s->pass_off[t];
            break;
          }
      }
    }
    const Question win{in.q, in.qlen, in.p + b, wlen};
    const Answered a = answer_window(s, win, nq, n, Sink{}, list, b, w);
    prefill += a.prefill_ns;
    decode += a.decode_ns;
    if (w == 0 || better(a, best)) best = a;
    *windows = w + 1;
    if (last) break;
    // The next window starts window_overlap tokens before this one's end (or
    // earlier, at a word boundary), and always at least one token later.
    const uint32_t ov = s->opt.window_overlap;
    if (ov == 0) {  // back to back: this window's end is the next one's start
      b += wlen;
      continue;
    }
    uint32_t next = n > ov ? n - ov : 1;
    const uint32_t stop = next - edge_search(next);
    for (uint32_t t = next; t > 0 && t >= stop; --t)
      if (window_edge_ok(P, in.plen, b + s->pass_off[t])) {
        next = t;
        break;
      }
    b += s->pass_off[next];
  }
  best.prefill_ns = prefill;
  best.decode_ns = decode;
  return best;
}

// amxqa_answer_topk's arguments (null for the other entry points).
struct TopkArgs {
  amxqa_span* spans = nullptr;
  size_t k = 0;
  size_t* n_spans = nullptr;
};

amxqa_status run(amxqa_session* s, const char* q, size_t qlen, const char* p, size_t plen,
                 const Sink& sink, char* out, size_t outcap, bool streaming,
                 amxqa_answer_info* info_out, const TopkArgs* topk = nullptr) {
  if (topk && topk->n_spans) *topk->n_spans = 0;
  if (!s) return AMXQA_ERR_NULL_ARGUMENT;
  if (s->magic != kSessionMagic) {
    set_thread_error("session is not initialised (or was finished)");
    return AMXQA_ERR_INVALID_ARGUMENT;
  }
  // 0.2's struct ends at no_answer_threshold; later fields are written only
  // to structs that have them.
  constexpr uint32_t kInfoSizeV02 = offsetof(amxqa_answer_info, windows);
  if (info_out && !struct_size_ok(info_out, kInfoSizeV02)) {
    session_set_error(s, "amxqa_answer: info->struct_size is %u, not sizeof(amxqa_answer_info) "
                      "(initialise it with amxqa_answer_info_init())", info_out->struct_size);
    return AMXQA_ERR_INVALID_ARGUMENT;
  }
  amxqa_answer_info info;
  // memset, not `= {}`: it also zeroes the padding bytes the caller receives
  // (answers compare byte for byte). All-zero bits are 0.0f in IEEE 754.
  // cppcheck-suppress memsetClassFloat
  std::memset(&info, 0, sizeof info);
  info.struct_size = sizeof info;
  info.isa = s->isa;
  info.no_answer_threshold = s->no_answer_threshold;
  // Only the caller's first struct_size bytes are written (amxqa.h).
  auto publish = [&] {
    if (info_out) copy_out(info_out, info);
  };
  publish();
  if ((!q && qlen) || (!p && plen) || (streaming ? !sink.on_token : (!topk && !out))) {
    session_set_error(s, "amxqa_answer: %s is NULL",
                      (!q && qlen) ? "question" : (!p && plen) ? "passage"
                                                  : streaming  ? "on_token"
                                                               : "out");
    return AMXQA_ERR_NULL_ARGUMENT;
  }
  SpanList list;
  if (topk) {
    if (!topk->spans || !topk->n_spans) {
      session_set_error(s, "amxqa_answer_topk: %s is NULL", !topk->spans ? "spans" : "n_spans");
      return AMXQA_ERR_NULL_ARGUMENT;
    }
    const uint32_t stride = topk->spans[0].struct_size;
    if (topk->k == 0 || stride < sizeof(amxqa_span) || stride % 8 != 0 || !s->opt.extractive) {
      session_set_error(s, "amxqa_answer_topk: %s",
                        topk->k == 0              ? "k is 0"
                        : !s->opt.extractive      ? "top-k spans need extractive mode"
                                                  : "spans[0].struct_size is not sizeof(amxqa_span) "
                                                    "(initialise it with amxqa_span_init())");
      return AMXQA_ERR_INVALID_ARGUMENT;
    }
    list.base = reinterpret_cast<uint8_t*>(topk->spans);
    list.stride = stride;
    list.cap = topk->k < s->opt.max_top_k ? topk->k : s->opt.max_top_k;
  }
  if (all_space(q, qlen)) {
    session_set_error(s, "amxqa_answer: the question is empty%s", qlen ? " (only white space)" : "");
    return AMXQA_ERR_EMPTY_QUESTION;
  }
  const Question in{q, qlen, p ? p : "", plen};
  const amxqa_model& m = *s->model;
  const uint64_t t0 = now_ns();

  // Tokenise. encode() returns the count the text needs even past the cap.
  const size_t nq = encode(m.tok, q, qlen, s->q_ids, nullptr, s->opt.max_question_tokens);
  info.question_tokens = static_cast<uint32_t>(nq > UINT32_MAX ? UINT32_MAX : nq);
  if (nq > s->opt.max_question_tokens) {
    publish();
    session_set_error(s, "question needs %zu tokens, the session allows %u", nq,
                      s->opt.max_question_tokens);
    return AMXQA_ERR_QUESTION_TOO_LONG;
  }
  // Offsets are uint32: a passage over 4 GiB is too long whatever its tokens.
  const size_t np = plen > UINT32_MAX ? SIZE_MAX
                                      : encode(m.tok, in.p, plen, s->pass_ids, s->pass_off,
                                               s->opt.max_passage_tokens);
  info.passage_tokens = static_cast<uint32_t>(np > UINT32_MAX ? UINT32_MAX : np);
  // Windows (amxqa.h "Long passages"): extractive, not streaming.
  const bool windowed = np > s->opt.max_passage_tokens && np != SIZE_MAX && s->opt.windows &&
                        s->opt.extractive && !streaming;
  if (np > s->opt.max_passage_tokens && !windowed) {
    publish();
    session_set_error(s,
                      "passage needs %zu tokens (or over 4 GiB), the session allows %u: raise "
                      "amxqa_session_options.max_passage_tokens (CLI --max-passage-tokens)%s",
                      np, s->opt.max_passage_tokens,
                      s->opt.windows || !s->opt.extractive || streaming
                          ? ""
                          : " or set amxqa_session_options.windows");
    return AMXQA_ERR_PASSAGE_TOO_LONG;
  }
  const uint64_t tokenised_ns = now_ns() - t0;
  SpanList* spans = topk ? &list : nullptr;
  uint32_t windows = 1;
  const Answered a =
      windowed ? answer_windows(s, in, static_cast<uint32_t>(nq), spans, &windows)
               : answer_window(s, in, static_cast<uint32_t>(nq), static_cast<uint32_t>(np), sink,
                               spans, 0, 0);
  const Outcome& r = a.r;

  info.prefill_ns = tokenised_ns + a.prefill_ns;
  info.decode_ns = a.decode_ns;
  info.abstained = r.abstained;
  info.stopped_on_eot = r.eot;
  info.answer_tokens = r.answer_tokens;
  info.mean_logprob = r.steps ? static_cast<float>(r.logprob_sum / r.steps) : 0.f;
  info.probability = a.probability;
  info.no_answer_margin = r.no_answer_margin;
  info.span_begin = a.span.begin;
  info.span_end = a.span.end;
  info.windows = windows;
  info.window = a.window;
  publish();
  if (r.cancelled) {
    session_set_error(s, "amxqa_answer_stream: cancelled by the callback");
    return AMXQA_ERR_CANCELLED;
  }
  if (topk) {
    if (!r.abstained) list.finish(span_of(a.span, a.probability, a.window, r.answer_tokens));
    else list.n = 0;
    *topk->n_spans = list.n;
    return AMXQA_OK;
  }
  if (!streaming && !write_answer(s, in, info, r, out, outcap)) {
    session_set_error(s, "answer does not fit in %zu bytes of output", outcap);
    return AMXQA_ERR_OUTPUT_TOO_SMALL;
  }
  return AMXQA_OK;
}

}  // namespace
}  // namespace amxqa

extern "C" {

AMXQA_API amxqa_status amxqa_answer(amxqa_session* session, const char* question, size_t qlen,
                                    const char* passage, size_t plen, char* out, size_t outcap,
                                    amxqa_answer_info* info) {
  // `out` is a valid (empty) string whatever the status, so callers may print it.
  if (out && outcap) out[0] = '\0';
  return amxqa::run(session, question, qlen, passage, plen, amxqa::Sink{}, out, outcap, false,
                    info);
}

AMXQA_API amxqa_status amxqa_answer_stream(amxqa_session* session, const char* question,
                                           size_t qlen, const char* passage, size_t plen,
                                           amxqa_token_fn on_token, void* user,
                                           amxqa_answer_info* info) {
  amxqa::Sink sink;
  sink.on_token = on_token;
  sink.user = user;
  return amxqa::run(session, question, qlen, passage, plen, sink, nullptr, 0, true, info);
}

AMXQA_API amxqa_status amxqa_answer_topk(amxqa_session* session, const char* question,
                                         size_t qlen, const char* passage, size_t plen,
                                         amxqa_span* spans, size_t k, size_t* n_spans,
                                         amxqa_answer_info* info) {
  amxqa::TopkArgs topk;
  topk.spans = spans;
  topk.k = k;
  topk.n_spans = n_spans;
  return amxqa::run(session, question, qlen, passage, plen, amxqa::Sink{}, nullptr, 0, false,
                    info, &topk);
}

}  // extern "C"
