// reliability_svg.h — the model card's reliability plot: answers binned by
// their reported probability (amxqa_answer_info.probability) against the
// share of them that were right, with the diagonal a calibrated model would
// follow, and the expected calibration error (ECE) of the bins.
#pragma once
#include <string>
#include <vector>

namespace amxqa::train {

struct Judged {
  double confidence = 0;  // 0..1
  bool correct = false;
};

struct ReliabilityBin {
  double lo = 0, hi = 0, mean_confidence = 0, accuracy = 0;
  size_t n = 0;
};

// `bins` equal-width bins over [0, 1].
std::vector<ReliabilityBin> reliability_bins(const std::vector<Judged>& judged, size_t bins);
// Sum over bins of n_b / N * |accuracy_b - mean_confidence_b|, in percent.
double expected_calibration_error(const std::vector<ReliabilityBin>& bins);
std::string render_reliability_svg(const std::vector<ReliabilityBin>& bins, const std::string& title);

}  // namespace amxqa::train
