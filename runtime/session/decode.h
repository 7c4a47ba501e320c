// decode.h — greedy decoding rules of schemas/MODEL.md "Decoding": which ids
// each step allows (the extractive candidate-set constraint, or every
// unmasked id in free mode), the argmax with its log-probability over the
// allowed set, and the passage span the candidates point at.
#pragma once
#include <cstddef>
#include <cstdint>

#include "amxqa.h"
#include "kernels/kernels.h"
#include "model/model.h"

namespace amxqa {

// ASCII white space (space, \t, \n, \v, \f, \r): what spans are trimmed of,
// and what a question made only of is empty.
bool is_ascii_space(char c);

// What the decoding rules read and write, and nothing more: one window's
// passage tokens, the options they obey, and the session's scratch arrays
// they fill. answer.cpp builds one per window (decode_view); the helpers
// below never see the rest of the session.
struct DecodeView {
  // Read.
  const amxqa_model* model = nullptr;
  const Kernels* kernels = nullptr;  // dot_rows for the pointers' scores
  uint32_t d = 0, V = 0;
  uint32_t max_answer_tokens = 0;
  bool use_vocab_mask = false, whole_words = false;
  const uint32_t* pass_ids = nullptr;  // n_pass passage token ids
  const uint32_t* pass_off = nullptr;  // byte offset of each in passage
  uint32_t n_pass = 0;
  const uint8_t* passage = nullptr;  // the window's bytes (whole-words rule)
  size_t passage_len = 0;
  const float* pass_u = nullptr;  // start-pointer models: n_pass × d, else null
  // Written.
  uint32_t* cand = nullptr;     // candidate end positions of the current span
  uint32_t* allowed = nullptr;  // n_pass + 2 ids allowed at this step
  uint8_t* seen = nullptr;      // ceil(V / 8) bits, all clear between calls
  float* pass_z = nullptr;      // n_pass + 1 step-1 scores (start-pointer models)
  float* scores = nullptr;      // V floats: the end pointer's scores
};

// May `id` be generated as an ordinary (non-special) token: never PAD, BOS,
// ANS, EOT or ABSTAIN (those are added by the step rules), and, with
// use_vocab_mask, only ids the model's vocabulary mask allows.
bool token_generatable(const DecodeView& v, uint32_t id);

// Extractive step 1: the distinct generatable passage ids, then ABSTAIN, into
// v.allowed. Returns the count including ABSTAIN; *n_span = count without it.
size_t allowed_first(DecodeView& v, size_t* n_span);

// Extractive step m > 1: the distinct generatable t_{i+1} for i in the
// candidates (i + 1 < n), then EOT. Returns the count including EOT.
size_t allowed_next(DecodeView& v, uint32_t n_cand, size_t* n_span);

struct Choice {
  uint32_t id = 0;
  float logprob = 0.f;  // log-softmax of the chosen id over the allowed set
  float no_answer_margin = 0.f;  // step 1 only: z_ABSTAIN − z_best answer (+inf: none allowed)
};

// Extractive step 1 of a start-pointer model (MODEL.md "Start pointer"):
// the caller has put each position's score xn · (tok_emb[t_i] + pass_u[i])
// in v.pass_z[i] and ABSTAIN's xn · tok_emb[ABSTAIN] in v.pass_z[n_pass]
// (answer.cpp score_starts). Decides among the allowed starts (as
// allowed_first: generatable id, may start a word); ties go to the earlier
// position. ABSTAIN is chosen iff no start is allowed or its margin over the
// best start exceeds tau (MODEL.md "No-answer decision"). The choice's id is
// t_i (or ABSTAIN); the candidates become {i}, *n_cand = 1.
Choice pick_start(DecodeView& v, uint32_t* n_cand, float tau);

// Extractive step 2 of an end-pointer model (MODEL.md "End pointer"), after
// the decode step that fed t_start, whose final-normed state is xn: scores
// the allowed ends j >= start by xn · pass_u[j] (ties: the earlier position).
// Returns the choice (id t_j, log-probability over the allowed ends) and sets
// v.cand[0] = j, so the span is the n_tokens = j − start + 1 tokens ending at
// cand[0].
Choice pick_end(DecodeView& v, const float* xn, uint32_t start, uint32_t* n_tokens);

// Top-k (MODEL.md "Top-k spans and windows"): after pick_start, the allowed
// start that follows position `prev` in the order pick_start ranks them (score
// v.pass_z descending, then position ascending; NaN never), or n_pass when
// none is left.
uint32_t next_start(const DecodeView& v, uint32_t prev);

// May a passage window begin or end at byte `at` of p[0, n)? Not inside a
// UTF-8 character, and not between two word characters (the whole-words rule's
// word characters), so a window edge is a span edge in the whole passage too.
bool window_edge_ok(const uint8_t* p, size_t n, size_t at);

// Extractive step 1 without the pointer: ids[0, n-1) are the span ids and
// ids[n-1] is ABSTAIN (allowed_first's order); the same decision as pick_start.
Choice pick_first(const uint32_t* ids, const float* logits, size_t n, float tau);

// Argmax over ids[i] with logits[i] (ties: lower id).
Choice pick_allowed(const uint32_t* ids, const float* logits, size_t n);

// Free mode: argmax over every generatable id of logits[V], plus EOT at
// steps > 1; step 1 decides ABSTAIN against the best id as pick_start does.
Choice pick_free(const DecodeView& v, const float* logits, uint32_t step, float tau);

// Candidates after step 1: every i with t_i == id, ascending. Returns count.
uint32_t candidates_first(DecodeView& v, uint32_t id);

// Candidates after step m > 1: {i + 1 : i in C, t_{i+1} == id}, in place, ascending.
uint32_t candidates_next(DecodeView& v, uint32_t n_cand, uint32_t id);

// Bytes [begin, end) of the window of the earliest candidate span of n_tokens
// tokens, widened to whole UTF-8 characters, with ASCII white space trimmed
// at both ends.
struct Span {
  uint64_t begin = 0, end = 0;
};
Span candidate_span(const DecodeView& v, uint32_t n_tokens);

}  // namespace amxqa
