// adamw.cpp — AdamW with global-norm clipping and a warm-up + cosine schedule
// (paper recipe: betas 0.9/0.95, wd 0.1 not on norms/gains/ba, clip 1.0).
// MoE expert tensors step only the experts a document touched ("lazy" AdamW:
// untouched experts keep their weights and moments as they are). The step
// walks the units of optimizer_units.h, so StepWorkers can run the same
// units on several threads with the same bits.
#include <algorithm>
#include <cmath>

#include "model/optimizer_units.h"
#include "model/train_simd.h"

namespace amxqa::train {

float lr_at(const AdamWConfig& c, uint64_t step, uint64_t total_steps) {
  if (c.warmup > 0 && step <= c.warmup)
    return c.lr * static_cast<float>(step) / static_cast<float>(c.warmup);
  if (total_steps <= c.warmup) return c.lr;
  const double t = std::min(1.0, double(step - c.warmup) / double(total_steps - c.warmup));
  const double cosv = 0.5 * (1.0 + std::cos(3.141592653589793 * t));
  return static_cast<float>(c.lr * (c.final_lr_frac + (1.0 - c.final_lr_frac) * cosv));
}

std::vector<OptUnit> optimizer_units(const std::vector<Param>& params) {
  std::vector<OptUnit> units;
  auto cut = [&](uint32_t param, int32_t expert, size_t begin, size_t count) {
    for (size_t off = 0; off < count; off += kOptUnitElems)
      units.push_back(OptUnit{param, expert, begin + off, std::min(kOptUnitElems, count - off)});
  };
  for (size_t i = 0; i < params.size(); ++i) {
    const Param& p = params[i];
    if (p.touched.empty()) {
      cut(uint32_t(i), -1, 0, p.w.size());
      continue;
    }
    const size_t slice = p.w.size() / p.touched.size();
    for (size_t e = 0; e < p.touched.size(); ++e) cut(uint32_t(i), int32_t(e), e * slice, slice);
  }
  return units;
}

// Untouched expert slices hold zero gradient (StepWorkers and zero_grad keep
// it so): they are skipped.
bool unit_live(const std::vector<Param>& params, const OptUnit& u) {
  return u.expert < 0 || params[u.param].touched[size_t(u.expert)];
}

double unit_sum_squares(const std::vector<Param>& params, const OptUnit& u) {
  if (!unit_live(params, u)) return 0;
  return simd::sum_squares(params[u.param].g.data() + u.begin, u.count);
}

double norm_of(const std::vector<double>& partial) {
  double ss = 0;
  for (double s : partial) ss += s;
  return std::sqrt(ss);
}

double units_norm(const std::vector<Param>& params, const std::vector<OptUnit>& units) {
  std::vector<double> partial(units.size());
  for (size_t u = 0; u < units.size(); ++u) partial[u] = unit_sum_squares(params, units[u]);
  return norm_of(partial);
}

AdamWScalars adamw_scalars(const AdamWConfig& c, uint64_t step, float lr, double norm) {
  if (step == 0) step = 1;  // steps count from 1 (bias correction would divide by 0)
  AdamWScalars s;
  s.gscale = (c.clip > 0.f && norm > c.clip) ? static_cast<float>(c.clip / norm) : 1.0f;
  s.bc1 = static_cast<float>(1.0 - std::pow(double(c.beta1), double(step)));
  s.bc2 = static_cast<float>(1.0 - std::pow(double(c.beta2), double(step)));
  s.lr = lr;
  return s;
}

void unit_adamw(std::vector<Param>& params, const OptUnit& u, const AdamWConfig& c,
                const AdamWScalars& s) {
  if (!unit_live(params, u)) return;
  Param& p = params[u.param];
  const float decay = p.decay ? 1.0f - s.lr * c.weight_decay : 1.0f;
  const size_t b = u.begin;
  simd::adamw(p.w.data() + b, p.m.data() + b, p.v.data() + b, p.g.data() + b, u.count, s.gscale,
              c.beta1, c.beta2, s.lr, decay, s.bc1, s.bc2, c.eps);
}

double adamw_step(std::vector<Param>& params, const AdamWConfig& c, uint64_t step, float lr) {
  const std::vector<OptUnit> units = optimizer_units(params);
  const double norm = units_norm(params, units);
  const AdamWScalars s = adamw_scalars(c, step, lr, norm);
  for (const OptUnit& u : units) unit_adamw(params, u, c, s);
  weights_changed();
  return norm;
}

}  // namespace amxqa::train
