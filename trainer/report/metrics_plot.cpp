#include "report/metrics_plot.h"

#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "json_members.h"

namespace amxqa::train {

using eval::PlotData;
using eval::PlotPanel;
using eval::PlotSeries;

PlotData read_metrics_log(const std::string& path) {
  std::ifstream f(path);
  if (!f) throw std::runtime_error("cannot read " + path);
  PlotSeries loss{"train loss", "#1f77b4", {}, false}, val{"validation loss", "#d62728", {}, true};
  PlotSeries toks{"tokens/s", "#2ca02c", {}, false};
  PlotSeries norm{"min RMSNorm gain PR / width", "#9467bd", {}, false};
  PlotSeries expert{"mean expert PR / E", "#ff7f0e", {}, false};
  PlotData d;
  d.x_label = "tokens trained (all stages)";
  double x = 0, experts = 0;
  std::string stage;
  std::string line;
  while (std::getline(f, line)) {
    const nlohmann::json v = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (!v.is_object()) continue;  // a torn line of a killed run, or not ours
    auto num = [&](const char* k, double* out) {
      const nlohmann::json* j = eval::number_member(v, k);
      if (!j) return false;
      *out = j->get<double>();
      return true;
    };
    double t = 0, y = 0;
    if (num("experts", &t)) experts = t;
    if (num("total_tokens", &t)) x = t;
    const std::string* s = eval::string_member(v, "stage");
    if (s && *s != stage && (v.contains("loss") || v.contains("val_loss"))) {
      stage = *s;
      d.stage_starts.emplace_back(x, stage);
    }
    if (v.contains("step") && num("loss", &y)) loss.points.push_back({x, y});
    if (num("val_loss", &y)) val.points.push_back({x, y});
    if (num("tok_s", &y) && y > 0) toks.points.push_back({x, y});
    if (num("norm_pr_min_share", &y)) norm.points.push_back({x, y});
    if (const nlohmann::json* e = eval::array_member(v, "expert_pr"); e && !e->empty() && experts > 0) {
      double m = 0;
      for (const auto& q : *e) m += q.is_number() ? q.get<double>() : 0.0;
      expert.points.push_back({x, m / e->size() / experts});
    }
  }
  d.panels.push_back({"loss", {loss, val}});
  d.panels.push_back({"throughput (tokens/s)", {toks}});
  PlotPanel diag{"collapse diagnostics (1 = spread, near 0 = collapsed)", {norm}};
  if (!expert.points.empty()) diag.series.push_back(expert);
  d.panels.push_back(diag);
  return d;
}

}  // namespace amxqa::train
