#include "stages/diagnostics.h"

#include <cmath>

namespace amxqa::train {

double participation_ratio(const float* v, size_t n) {
  double s = 0, s2 = 0;
  for (size_t i = 0; i < n; ++i) {
    s += std::fabs(v[i]);
    s2 += double(v[i]) * v[i];
  }
  return s2 > 0 ? s * s / s2 : 0;
}

double participation_ratio(const uint64_t* c, size_t n) {
  double s = 0, s2 = 0;
  for (size_t i = 0; i < n; ++i) {
    s += double(c[i]);
    s2 += double(c[i]) * double(c[i]);
  }
  return s2 > 0 ? s * s / s2 : 0;
}

std::vector<GainPr> norm_gain_prs(const TrainModel& m) {
  std::vector<GainPr> out;
  for (const Param& p : m.params()) {
    const std::string& n = p.name;
    if (n.size() >= 4 && n.compare(n.size() - 4, 4, "norm") == 0)
      out.push_back({n, participation_ratio(p.w.data(), p.w.size()), p.w.size()});
  }
  return out;
}

std::vector<double> expert_prs(const std::vector<uint64_t>& counts, uint32_t experts) {
  std::vector<double> out;
  if (experts == 0) return out;
  for (size_t l = 0; l + experts <= counts.size(); l += experts)
    out.push_back(participation_ratio(counts.data() + l, experts));
  return out;
}

}  // namespace amxqa::train
