// plot_svg.h — line plots as a hand-written SVG: panels stacked over one
// shared x axis, each with its series (lines or dots) and a legend, and
// dashed vertical markers (the trainer's stage boundaries). No plotting
// library is packaged for C++ in Debian; this is the one SVG line-plot writer
// of the project (the trainer's training.svg, `amxqa-train plot`).
#pragma once
#include <string>
#include <vector>

namespace amxqa::eval {

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
  std::vector<std::pair<double, std::string>> stage_starts;  // x, stage name: dashed markers
  std::string x_label;
};

std::string render_svg(const PlotData& data, const std::string& title);

}  // namespace amxqa::eval
