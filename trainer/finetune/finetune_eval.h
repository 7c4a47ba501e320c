// finetune_eval.h — the held-out figures `amxqa-train finetune` prints before
// and after training, measured on the model FILE through the public API with
// the calibration pass and threshold sweep that `amxqa calibrate` and the
// calibrate stage use (sdk/eval/calibration_pass.h, no_answer_sweep.h): one
// pass per model gives every question's span and no-answer margin, so the
// figures at any threshold, the margin's ROC AUC and the recalibrated
// threshold all come from it.
#pragma once
#include <cstdio>
#include <string>
#include <vector>

#include "no_answer_sweep.h"
#include "squad_eval_set.h"

namespace amxqa::train {

struct HeldOutPass {
  std::vector<eval::CalibrationItem> items;
  size_t failures = 0;           // questions the library failed on (scored as abstentions)
  float model_threshold = 0.f;   // the file's own no-answer threshold
  bool calibrated = false;       // the file carries one
  std::string method;            // how it was chosen
};

// Opens `model_path` and answers every question once; throws on a model the
// library refuses.
HeldOutPass held_out_pass(const std::string& model_path, const eval::EvalSet& set);

// The figures at one threshold, with the margin's ROC AUC (NaN without both kinds).
struct HeldOutScore {
  eval::SweepPoint at;
  double auc = 0;
};
HeldOutScore score_at(const HeldOutPass& pass, float threshold);

// The figures as text, for the printed table and the card's alike: EM, F1,
// has-answer EM, has-answer F1, no-answer accuracy ("-" without unanswerable
// questions), over-refusal, AUC ("-" without both kinds), threshold.
std::vector<std::string> score_cells(const HeldOutScore& s);

// Prints `label` and score_cells in columns (the header with print_score_header).
void print_score_header(std::FILE* out);
void print_score(std::FILE* out, const std::string& label, const HeldOutScore& s);

// Answers at `threshold` for the questions at `indices`: the span text, or
// "(abstained)".
std::vector<std::string> answers_at(const std::string& model_path, const eval::EvalSet& set,
                                    const std::vector<size_t>& indices, float threshold);

}  // namespace amxqa::train
