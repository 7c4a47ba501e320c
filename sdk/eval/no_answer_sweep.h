// no_answer_sweep.h — choosing the no-answer threshold on labelled data
// (schemas/MODEL.md "No-answer decision"). Each question is answered once
// with the threshold at +inf, so its span, and the margin, are known; at any
// threshold t the model abstains exactly where margin > t, so every threshold
// is scored from that one pass. Used by `amxqa calibrate` and the trainer's
// calibrate stage, so what the card reports is what a user reproduces.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

namespace amxqa::eval {

struct CalibrationItem {
  float margin = 0.f;      // no-answer margin (+inf: no start allowed, always abstains)
  bool impossible = false; // SQuAD 2.0 is_impossible
  double em = 0, f1 = 0;   // the span's scores if answered (0 for an impossible question)
};

struct SweepPoint {
  float threshold = 0.f;
  double em = 0, f1 = 0;              // percent, all questions
  double has_em = 0, has_f1 = 0;      // percent, answerable questions
  double no_answer_accuracy = 0;      // percent of impossible questions abstained on
  double abstain_rate = 0;            // percent of all questions abstained on
  double over_refusal = 0;            // percent of answerable questions abstained on
  size_t n_has = 0, n_no = 0;
};

SweepPoint score_threshold(const std::vector<CalibrationItem>& items, float threshold);

struct Sweep {
  SweepPoint best;                // highest F1 within the over-refusal cap (ties: the larger
                                  // threshold, fewer abstentions)
  std::vector<SweepPoint> steps;  // `steps` thresholds spread over the margins, ascending
  double auc = 0;                 // no_answer_auc(items)
  SweepPoint best_no_answer_at_20;  // best_no_answer_accuracy(items, 20)
};

// How well the margin alone separates the two kinds, whatever the threshold:
// the ROC AUC of the margin as a score for "unanswerable", i.e. the chance
// that a random unanswerable question has a larger margin than a random
// answerable one (ties count half). 0.5 is a coin, 1 a perfect split; NaN
// unless both kinds are present.
double no_answer_auc(const std::vector<CalibrationItem>& items);
// The threshold with the highest no-answer accuracy among those whose
// over-refusal is at most max_over_refusal percent (ties: the larger
// threshold). "Never" always qualifies.
SweepPoint best_no_answer_accuracy(const std::vector<CalibrationItem>& items, double max_over_refusal);
// Candidates: below every margin, between each pair of neighbouring margins,
// and FLT_MAX (never abstain on a scored passage). best only considers
// thresholds whose over-refusal (percent of answerable questions abstained
// on) is at most max_over_refusal; FLT_MAX always qualifies.
Sweep sweep_thresholds(const std::vector<CalibrationItem>& items, size_t steps, double max_over_refusal = 100.0);

// The thresholds file that --threshold-file and the Python binding read:
// {"model", "data", "questions", "method", "best": {...}, "steps": [{...}, ...]}.
std::string sweep_json(const Sweep& sweep, const std::string& model, const std::string& data,
                       const std::string& method);
// best.threshold of such a file (and its "method", if asked); false with
// *error set on anything else.
bool parse_threshold_json(const std::string& text, float* threshold, std::string* error,
                          std::string* method = nullptr);
// How the threshold was chosen, short enough for amxqa_model_info's
// calibration_method: "best F1 with over-refusal <= 15% on NAME".
std::string describe_choice(const std::string& data_name, double max_over_refusal);

}  // namespace amxqa::eval
