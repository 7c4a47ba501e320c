#include "calibration_pass.h"

#include <cmath>

#include "squad_metrics.h"

namespace amxqa::eval {

std::vector<CalibrationItem> calibration_pass(amxqa::Session& session, const EvalSet& set,
                                              const std::function<void(size_t)>& on_progress,
                                              size_t* failures) {
  *failures = 0;
  session.set_threshold(INFINITY);  // every span and margin; the sweep decides abstention
  std::vector<CalibrationItem> items;
  items.reserve(set.questions.size());
  amxqa::Answer a;
  for (size_t i = 0; i < set.questions.size(); ++i) {
    const EvalQuestion& q = set.questions[i];
    CalibrationItem it;
    it.impossible = q.impossible;
    it.margin = INFINITY;
    if (session.answer(q.question, set.contexts[q.context], &a) == AMXQA_OK) {
      it.margin = a.no_answer_margin;
      if (!q.impossible && !a.abstained) {
        it.em = best_exact_match(a.text, q.answers);
        it.f1 = best_f1(a.text, q.answers);
      }
    } else {
      ++*failures;
    }
    items.push_back(it);
    if (on_progress) on_progress(i + 1);
  }
  session.set_threshold(NAN);  // the session's own again
  return items;
}

}  // namespace amxqa::eval
