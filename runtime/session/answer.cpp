// answer.cpp — amxqa_answer() and amxqa_answer_stream(): tokenise, build the
// prompt (BOS question "\n\n" passage ANS, schemas/MODEL.md "Prompt format"),
// prefill it in blocks, then decode greedily under the extractive constraint
// (or freely). Both entry points share one runner; they differ only in where
// the answer goes. Nothing here allocates: every buffer is in the session.
#include <cmath>
#include <cstring>
#include <ctime>

#include "amxqa.h"
#include "api/errors.h"
#include "api/struct_size.h"
#include "session/decode.h"
#include "session/forward.h"
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
    if (!(q[i] == ' ' || q[i] == '\t' || q[i] == '\n' || q[i] == '\r' || q[i] == '\v' || q[i] == '\f'))
      return false;
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

// Token i of the prompt BOS q… sep… p… ANS.
uint32_t prompt_token(const amxqa_session* s, size_t i, uint32_t nq, uint32_t np) {
  if (i == 0) return s->model->bos;
  i -= 1;
  if (i < nq) return s->q_ids[i];
  i -= nq;
  if (i < s->n_sep) return s->sep_ids[i];
  i -= s->n_sep;
  if (i < np) return s->pass_ids[i];
  return s->model->ans;
}

// MODEL.md "Question match": does passage token id occur between BOS and
// the passage (question and separator)? A scan: questions are short.
bool in_question(const amxqa_session* s, uint32_t id, uint32_t nq) {
  for (uint32_t i = 0; i < nq; ++i)
    if (s->q_ids[i] == id) return true;
  for (uint32_t i = 0; i < s->n_sep; ++i)
    if (s->sep_ids[i] == id) return true;
  return false;
}

void prefill_prompt(amxqa_session* s, uint32_t nq, uint32_t np) {
  const size_t total = size_t(1) + nq + s->n_sep + np + 1;
  const size_t pass_begin = size_t(1) + nq + s->n_sep, pass_end = pass_begin + np;
  forward_reset(s);
  uint8_t match[kPrefillRows];
  for (size_t i = 0; i < total; i += kPrefillRows) {
    const uint32_t m = static_cast<uint32_t>(total - i < kPrefillRows ? total - i : kPrefillRows);
    for (uint32_t t = 0; t < m; ++t) {
      s->blk.ids[t] = prompt_token(s, i + t, nq, np);
      const bool in_passage = i + t >= pass_begin && i + t < pass_end;
      match[t] = s->model->question_match && in_passage && in_question(s, s->blk.ids[t], nq);
    }
    forward_rows(s, s->blk.ids, m, nullptr, match);
    // Start pointer: keep each passage token's final-normed state for step 1.
    const size_t lo = i > pass_begin ? i : pass_begin, hi = i + m < pass_end ? i + m : pass_end;
    if (s->pass_u && lo < hi)
      final_norm_rows(s, static_cast<uint32_t>(lo - i), static_cast<uint32_t>(hi - lo),
                      s->pass_u + (lo - pass_begin) * s->dim.d);
  }
}

// Bytes of passage token i.
size_t pass_token_len(const amxqa_session* s, uint32_t i, uint32_t np, size_t plen) {
  return (i + 1 < np ? s->pass_off[i + 1] : plen) - s->pass_off[i];
}

struct Outcome {
  uint32_t answer_tokens = 0, n_cand = 0;
  bool abstained = false, eot = false, cancelled = false;
  double logprob_sum = 0.0;
  float no_answer_margin = 0.f;  // step 1's (MODEL.md "No-answer decision")
  uint32_t steps = 0;
};

// Extractive greedy decoding (MODEL.md "Decoding"): the logits after ANS are
// already in s->blk.xn.
Outcome decode_extractive(amxqa_session* s, const Question& in, uint32_t np, const Sink& sink) {
  Outcome r;
  for (uint32_t step = 1;; ++step) {
    // A start-pointer model picks its first token as a position (pick_start
    // sets the candidates); everything else picks ids from the allowed set.
    const bool pointer_step = step == 1 && s->pass_u;
    Choice c;
    if (pointer_step) {
      c = pick_start(s, np, &r.n_cand, s->no_answer_threshold);
    } else {
      size_t n_span = 0, na = 0;
      if (step == 1) {
        na = allowed_first(s, np, &n_span);
      } else {
        if (r.answer_tokens == s->opt.max_answer_tokens) break;
        na = allowed_next(s, np, r.n_cand, &n_span);
        if (n_span == 0) break;  // no passage token continues the span
        decode_step(s, s->ans_ids[r.answer_tokens - 1]);
      }
      readout_rows(s, s->allowed, na, s->logits);
      c = step == 1 ? pick_first(s->allowed, s->logits, na, s->no_answer_threshold)
                    : pick_allowed(s->allowed, s->logits, na);
    }
    if (step == 1) r.no_answer_margin = c.no_answer_margin;
    r.logprob_sum += c.logprob;
    r.steps = step;
    if (step == 1 && c.id == s->model->abstain) {
      r.abstained = true;
      break;
    }
    if (step > 1 && c.id == s->model->eot) {
      r.eot = true;
      break;
    }
    if (!pointer_step)
      r.n_cand = step == 1 ? candidates_first(s, np, c.id) : candidates_next(s, np, r.n_cand, c.id);
    s->ans_ids[r.answer_tokens++] = c.id;
    if (sink.on_token) {
      const uint32_t i = s->cand[0];
      if (sink.on_token(sink.user, in.p + s->pass_off[i], pass_token_len(s, i, np, in.plen))) {
        r.cancelled = true;
        break;
      }
    }
  }
  return r;
}

// Free-mode greedy decoding: every unmasked id (ABSTAIN at step 1, EOT later).
Outcome decode_free(amxqa_session* s, const Sink& sink) {
  Outcome r;
  for (uint32_t step = 1;; ++step) {
    if (step > 1) {
      if (r.answer_tokens == s->opt.max_answer_tokens) break;
      decode_step(s, s->ans_ids[r.answer_tokens - 1]);
    }
    readout_all(s, s->logits);
    const Choice c = pick_free(s, s->logits, step, s->no_answer_threshold);
    if (step == 1) r.no_answer_margin = c.no_answer_margin;
    r.logprob_sum += c.logprob;
    r.steps = step;
    if (step == 1 && c.id == s->model->abstain) {
      r.abstained = true;
      break;
    }
    if (step > 1 && c.id == s->model->eot) {
      r.eot = true;
      break;
    }
    s->ans_ids[r.answer_tokens++] = c.id;
    if (sink.on_token) {
      size_t len = 0;
      const uint8_t* bytes = token_bytes(s->model->tok, c.id, &len);
      if (sink.on_token(sink.user, reinterpret_cast<const char*>(bytes), len)) {
        r.cancelled = true;
        break;
      }
    }
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

amxqa_status run(amxqa_session* s, const char* q, size_t qlen, const char* p, size_t plen,
                 const Sink& sink, char* out, size_t outcap, bool streaming,
                 amxqa_answer_info* info_out) {
  if (!s) return AMXQA_ERR_NULL_ARGUMENT;
  if (s->magic != kSessionMagic) {
    set_thread_error("session is not initialised (or was finished)");
    return AMXQA_ERR_INVALID_ARGUMENT;
  }
  if (info_out && !struct_size_ok(info_out)) {
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
  if ((!q && qlen) || (!p && plen) || (streaming ? !sink.on_token : !out)) {
    session_set_error(s, "amxqa_answer: %s is NULL",
                      (!q && qlen) ? "question" : (!p && plen) ? "passage"
                                                  : streaming  ? "on_token"
                                                               : "out");
    return AMXQA_ERR_NULL_ARGUMENT;
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
  if (np > s->opt.max_passage_tokens) {
    publish();
    session_set_error(s,
                      "passage needs %zu tokens (or over 4 GiB), the session allows %u: raise "
                      "amxqa_session_options.max_passage_tokens (CLI --max-passage-tokens)",
                      np, s->opt.max_passage_tokens);
    return AMXQA_ERR_PASSAGE_TOO_LONG;
  }
  const uint32_t n = static_cast<uint32_t>(np);
  s->passage = reinterpret_cast<const uint8_t*>(in.p);
  s->passage_len = plen;

  prefill_prompt(s, static_cast<uint32_t>(nq), n);
  const uint64_t t1 = now_ns();
  const Outcome r = s->opt.extractive ? decode_extractive(s, in, n, sink) : decode_free(s, sink);
  const uint64_t t2 = now_ns();

  info.prefill_ns = t1 - t0;
  info.decode_ns = t2 - t1;
  info.abstained = r.abstained;
  info.stopped_on_eot = r.eot;
  info.answer_tokens = r.answer_tokens;
  info.mean_logprob = r.steps ? static_cast<float>(r.logprob_sum / r.steps) : 0.f;
  // The product of the emitted steps' probabilities, step 1 under the
  // threshold (MODEL.md "No-answer decision").
  info.probability = static_cast<float>(std::exp(r.logprob_sum));
  info.no_answer_margin = r.no_answer_margin;
  if (s->opt.extractive && !r.abstained && r.answer_tokens > 0) {
    const Span sp = candidate_span(s, in.p, plen, n, r.answer_tokens);
    info.span_begin = sp.begin;
    info.span_end = sp.end;
  }
  publish();
  if (r.cancelled) {
    session_set_error(s, "amxqa_answer_stream: cancelled by the callback");
    return AMXQA_ERR_CANCELLED;
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

}  // extern "C"
