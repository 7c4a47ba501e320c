#include "answer_json.h"

#include <nlohmann/json.hpp>

#include "qa_response.h"

namespace amxqa::cli {

std::string answer_json(const amxqa::Answer& a, std::string_view passage,
                        const std::vector<amxqa::Candidate>& candidates) {
  const amxqa_answer_info& i = a.info;
  const std::string context(passage);
  serve::QaAnswer q;
  q.no_answer = a.abstained;
  q.score = a.probability;
  q.no_answer_margin = i.no_answer_margin;
  q.no_answer_threshold = i.no_answer_threshold;
  q.windows = i.windows;
  q.window = i.window;
  serve::set_span(context, a.abstained ? 0 : i.span_begin, a.abstained ? 0 : i.span_end, &q);
  for (const amxqa::Candidate& c : candidates) {
    q.candidates.emplace_back();
    serve::set_span(context, c.begin, c.end, &q.candidates.back());
    q.candidates.back().score = c.score;
  }
  // ordered_json: the shared fields (the no-answer decision and the windows among them),
  // then the other info fields in the order amxqa.h declares them.
  nlohmann::ordered_json j = nlohmann::ordered_json::parse(serve::answer_body(q));
  j["answer"] = a.text;  // the library's bytes (in free mode not a span of the passage)
  j["status"] = a.status.name();
  j["span_begin"] = i.span_begin;
  j["span_end"] = i.span_end;
  j["abstained"] = i.abstained != 0;
  j["stopped_on_eot"] = i.stopped_on_eot != 0;
  j["mean_logprob"] = i.mean_logprob;
  j["probability"] = i.probability;
  j["question_tokens"] = i.question_tokens;
  j["passage_tokens"] = i.passage_tokens;
  j["answer_tokens"] = i.answer_tokens;
  j["prefill_ns"] = i.prefill_ns;
  j["decode_ns"] = i.decode_ns;
  j["isa"] = amxqa_isa_name(i.isa);
  // Passage bytes need not be UTF-8: replace what is not, never throw.
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace amxqa::cli
