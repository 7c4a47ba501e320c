// diagnostics.h — the paper's collapse signals, computed from a TrainModel:
// participation ratio PR(v) = (Σ|v|)² / Σv² (n for a flat vector, 1 for a
// single spike; ours: |v| so a sign flip cannot hide a spike) of expert usage
// counts and of every RMSNorm gain vector.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "model/train_model.h"

namespace amxqa::train {

double participation_ratio(const float* v, size_t n);
double participation_ratio(const uint64_t* counts, size_t n);

struct GainPr {
  std::string name;
  double pr = 0;
  size_t n = 0;
};
// Every `*norm` parameter (attn_norm, ffn_norm, final_norm).
std::vector<GainPr> norm_gain_prs(const TrainModel& m);
// Collapse warning threshold: PR below this share of n (ours).
constexpr double kCollapsePrShare = 0.1;

// Per MoE layer PR of the routing-slot counts in `counts` (layers × E).
std::vector<double> expert_prs(const std::vector<uint64_t>& counts, uint32_t experts);

}  // namespace amxqa::train
