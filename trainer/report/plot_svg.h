// plot_svg.h — `amxqa-train plot`: the JSONL metrics log as a hand-written
// SVG with three panels over tokens trained (all stages in sequence):
// training and validation loss, tokens/s, and the collapse diagnostics
// (lowest RMSNorm-gain PR share, mean expert-usage PR share). Stage
// boundaries are dashed lines.
#pragma once
#include <string>
#include <vector>

namespace amxqa::train {

struct PlotPoint {
  double x = 0, y = 0;
};
struct PlotSeries {
  std::string name, color;
  std::vector<PlotPoint> points;
  bool dots = false;
};
struct PlotPanel {
  std::string title;
  std::vector<PlotSeries> series;
};
struct PlotData {
  std::vector<PlotPanel> panels;
  std::vector<std::pair<double, std::string>> stage_starts;  // x, stage name
};

// Reads a metrics log (torn or foreign lines are skipped). Throws if unreadable.
PlotData read_metrics_log(const std::string& path);
std::string render_svg(const PlotData& data, const std::string& title);

}  // namespace amxqa::train
