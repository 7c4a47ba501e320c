// optimizer_units.h — the optimizer step cut into a fixed list of units, so it
// can run on any number of threads with the bits of one. A unit is a slice of
// one parameter (of one expert, for expert tensors) of at most kOptUnitElems
// elements; the list depends only on the parameters' shapes, never on the
// thread count. The global gradient norm is the sum of the units' sums of
// squares added in unit order on one thread, whoever computed each; AdamW and
// the replica copies are per element, so any split gives the same bits.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "model/train_model.h"

namespace amxqa::train {

// 64 Ki floats: a unit's w, g, m, v (1 MiB) stay in L2 between the passes
// over them, and a step has enough units to balance two to four threads.
constexpr size_t kOptUnitElems = size_t(1) << 16;

struct OptUnit {
  uint32_t param = 0;   // index into params()
  int32_t expert = -1;  // expert slice the unit lies in (-1: dense tensor)
  size_t begin = 0, count = 0;  // elements [begin, begin + count) of the tensor
};

// Every element of every parameter in exactly one unit, in parameter order
// and ascending within a parameter.
std::vector<OptUnit> optimizer_units(const std::vector<Param>& params);

// Whether the unit holds this step's gradient (dense, or its expert touched).
bool unit_live(const std::vector<Param>& params, const OptUnit& u);

// Σ g² over the unit (0 when it is not live).
double unit_sum_squares(const std::vector<Param>& params, const OptUnit& u);

// What one AdamW step needs besides the gradient: the clip scale from the
// global norm and the bias corrections.
struct AdamWScalars {
  float gscale = 1.f, bc1 = 1.f, bc2 = 1.f, lr = 0.f;
};
// norm: sqrt of the unit sums added in unit order.
AdamWScalars adamw_scalars(const AdamWConfig& c, uint64_t step, float lr, double norm);

// AdamW on the unit when it is live (nothing otherwise).
void unit_adamw(std::vector<Param>& params, const OptUnit& u, const AdamWConfig& c,
                const AdamWScalars& s);

// sqrt(Σ partial[u]) in unit order.
double norm_of(const std::vector<double>& partial);

// The global gradient norm over the units on this thread: each unit's sum of
// squares, then norm_of (StepWorkers computes the sums on its workers).
double units_norm(const std::vector<Param>& params, const std::vector<OptUnit>& units);

}  // namespace amxqa::train
