// answer_json.h — one answer as one line of JSON, every amxqa_answer_info
// field included (`amxqa answer --json`, `amxqa shell --json`). Non-finite
// numbers (a threshold of inf) are written as null: JSON has no infinity.
#pragma once
#include <string>

#include "amxqa.hpp"

namespace amxqa::cli {

std::string answer_json(const amxqa::Answer& a);

}  // namespace amxqa::cli
