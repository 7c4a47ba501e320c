// adamw.cpp — AdamW with global-norm clipping and a warm-up + cosine schedule
// (paper recipe: betas 0.9/0.95, wd 0.1 not on norms/gains/ba, clip 1.0).
// MoE expert tensors step only the experts a document touched ("lazy" AdamW:
// untouched experts keep their weights and moments as they are).
#include <algorithm>
#include <cmath>

#include "model/train_model.h"
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

double adamw_step(std::vector<Param>& params, const AdamWConfig& c, uint64_t step, float lr) {
  if (step == 0) step = 1;  // steps count from 1 (bias correction would divide by 0)
  // Untouched expert slices hold zero gradient (zero_grad keeps it so): skip them.
  double ss = 0;
  for (const Param& p : params) {
    if (p.touched.empty()) {
      ss += simd::sum_squares(p.g.data(), p.g.size());
      continue;
    }
    const size_t slice = p.w.size() / p.touched.size();
    for (size_t e = 0; e < p.touched.size(); ++e)
      if (p.touched[e]) ss += simd::sum_squares(p.g.data() + e * slice, slice);
  }
  const double norm = std::sqrt(ss);
  const float gscale = (c.clip > 0.f && norm > c.clip) ? static_cast<float>(c.clip / norm) : 1.0f;
  const float bc1 = static_cast<float>(1.0 - std::pow(double(c.beta1), double(step)));
  const float bc2 = static_cast<float>(1.0 - std::pow(double(c.beta2), double(step)));
  for (Param& p : params) {
    const float decay = p.decay ? 1.0f - lr * c.weight_decay : 1.0f;
    auto range = [&](size_t begin, size_t count) {
      simd::adamw(p.w.data() + begin, p.m.data() + begin, p.v.data() + begin, p.g.data() + begin,
                  count, gscale, c.beta1, c.beta2, lr, decay, bc1, bc2, c.eps);
    };
    if (p.touched.empty()) {
      range(0, p.w.size());
      continue;
    }
    const size_t slice = p.w.size() / p.touched.size();
    for (size_t e = 0; e < p.touched.size(); ++e)
      if (p.touched[e]) range(e * slice, slice);
  }
  return norm;
}

}  // namespace amxqa::train
