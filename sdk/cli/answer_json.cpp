#include "answer_json.h"

#include <nlohmann/json.hpp>

namespace amxqa::cli {

std::string answer_json(const amxqa::Answer& a) {
  const amxqa_answer_info& i = a.info;
  // ordered_json: the fields in the order amxqa.h declares them.
  nlohmann::ordered_json j;
  j["answer"] = a.text;
  j["status"] = a.status.name();
  j["span_begin"] = i.span_begin;
  j["span_end"] = i.span_end;
  j["abstained"] = i.abstained != 0;
  j["stopped_on_eot"] = i.stopped_on_eot != 0;
  j["mean_logprob"] = i.mean_logprob;
  j["probability"] = i.probability;
  j["no_answer_margin"] = i.no_answer_margin;
  j["no_answer_threshold"] = i.no_answer_threshold;
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
