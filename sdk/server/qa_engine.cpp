#include "qa_engine.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace amxqa::serve {

namespace {
// Answers are at most max_answer_tokens (32 by default) tokens: this holds
// nearly all of them; a longer one is copied from the context span instead.
constexpr size_t kAnswerBufferBytes = 4096;
}  // namespace

bool SessionPool::open(const amxqa::Model& model, const amxqa_session_options& options, size_t n,
                       std::string* error) {
  workers_.clear();
  workers_.reserve(n);
  amxqa_session_options o = options;
  o.max_top_k = kMaxTopK;  // a fixed copy of the decoding state per session, whatever top_k asks
  for (size_t i = 0; i < n; ++i) {
    Worker w;
    w.session = amxqa::Session::create(model, o);
    if (!w.session.ok()) {
      *error = std::string("cannot create session ") + std::to_string(i + 1) + " of " + std::to_string(n) +
               ": " + w.session.status().name() + ": " + w.session.status().message;
      workers_.clear();
      return false;
    }
    w.out.resize(kAnswerBufferBytes);
    w.spans.assign(kMaxTopK, amxqa_span_init());
    w.max_passage_tokens = options.max_passage_tokens;
    w.options = o;
    workers_.push_back(std::move(w));
  }
  return true;
}

namespace {

QaError status_error(amxqa_status st, const Worker& w) {
  switch (st) {
    case AMXQA_ERR_PASSAGE_TOO_LONG:
      return make_error(422, "passage_too_long",
                        "\"context\" needs more than the " + std::to_string(w.max_passage_tokens) +
                            " passage tokens a session holds: send \"windows\": true to answer it in "
                            "windows, or raise --max-passage-tokens");
    case AMXQA_ERR_QUESTION_TOO_LONG:
      return make_error(422, "question_too_long", "\"question\" needs more tokens than a session allows");
    case AMXQA_ERR_EMPTY_QUESTION:
      return make_error(422, "empty_field", "\"question\" is empty");
    default:
      return make_error(500, "internal",
                        std::string(amxqa_status_name(st)) + ": " + amxqa_last_error(w.session.get()));
  }
}

}  // namespace

QaError answer_request(Worker& w, const QaRequest& req, QaAnswer* out) {
  amxqa_session* s = w.session.get();
  amxqa_session_options o;
  QaError e = request_options(req, w.options, &o);
  if (!e.ok()) return e;
  if (amxqa_session_set_options(s, &o) != AMXQA_OK)
    return make_error(422, "invalid_field", amxqa_last_error(s));
  if (req.has_threshold) {
    const amxqa_status st = amxqa_session_set_threshold(s, req.threshold);
    if (st != AMXQA_OK) {
      amxqa_session_set_options(s, nullptr);
      return make_error(422, "invalid_field", std::string("\"threshold\": ") + amxqa_last_error(s));
    }
  }
  amxqa_answer_info info = amxqa_answer_info_init();
  out->candidates.clear();
  size_t n_spans = 0;
  const amxqa_status st =
      req.top_k > 1 ? amxqa_answer_topk(s, req.question.data(), req.question.size(), req.context.data(),
                                        req.context.size(), w.spans.data(), req.top_k, &n_spans, &info)
                    : amxqa_answer(s, req.question.data(), req.question.size(), req.context.data(),
                                   req.context.size(), w.out.data(), w.out.size(), &info);
  // NaN and NULL restore the session's own threshold and options, so the next request starts clean.
  if (req.has_threshold) amxqa_session_set_threshold(s, NAN);
  amxqa_session_set_options(s, nullptr);
  if (st != AMXQA_OK && st != AMXQA_ERR_OUTPUT_TOO_SMALL) return status_error(st, w);

  out->no_answer = info.abstained != 0;
  out->score = info.probability;
  out->no_answer_margin = info.no_answer_margin;
  out->no_answer_threshold = info.no_answer_threshold;
  out->windows = info.windows;
  out->window = info.window;
  for (size_t i = 0; i < n_spans; ++i) {
    out->candidates.emplace_back();
    set_span(req.context, w.spans[i].begin, w.spans[i].end, &out->candidates.back());
    out->candidates.back().score = w.spans[i].score;
  }
  // The answer's text is always its span's context bytes (the library writes
  // exactly those), so an answer too long for w.out needs no special case.
  if (out->no_answer) set_span(req.context, 0, 0, out);
  else set_span(req.context, info.span_begin, info.span_end, out);
  return QaError{};
}

}  // namespace amxqa::serve
