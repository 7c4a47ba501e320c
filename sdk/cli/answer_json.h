// answer_json.h — one answer as one line of JSON (`amxqa answer --json`,
// `amxqa shell --json`): first the fields every JSON surface writes
// (sdk/server/qa_response.h answer_body: answer, score, start/end in
// characters, byte_start/byte_end, no_answer, no_answer_margin,
// no_answer_threshold, windows, window, candidates), then every other
// amxqa_answer_info field. Non-finite numbers (a threshold of inf) are
// written as null: JSON has no infinity.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "amxqa.hpp"

namespace amxqa::cli {

// `candidates`: Session::answer_topk's spans (empty: the answer alone).
std::string answer_json(const amxqa::Answer& a, std::string_view passage,
                        const std::vector<amxqa::Candidate>& candidates = {});

}  // namespace amxqa::cli
