// calibration_pass.h — the one pass over a labelled set that the threshold
// sweep needs (no_answer_sweep.h): every question answered with the session's
// threshold at +inf, so its span is scored and its margin known; the session's
// own threshold is restored after. Shared by `amxqa calibrate` and the
// trainer's calibrate stage, so both measure the same thing.
#pragma once
#include <functional>
#include <vector>

#include "amxqa.hpp"
#include "no_answer_sweep.h"
#include "squad_eval_set.h"

namespace amxqa::eval {

// on_progress(done), after each question, may be empty. A question the
// library fails on counts as an abstention (margin +inf); *failures counts them.
std::vector<CalibrationItem> calibration_pass(amxqa::Session& session, const EvalSet& set,
                                              const std::function<void(size_t)>& on_progress,
                                              size_t* failures);

}  // namespace amxqa::eval
