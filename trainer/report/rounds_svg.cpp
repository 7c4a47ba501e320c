#include "report/rounds_svg.h"

#include <algorithm>

#include "svg_text.h"

namespace amxqa::train {
namespace {

struct Metric {
  const char* name;
  const char* color;
  double CardRound::*field;
};
const Metric kMetrics[] = {{"EM", "#1f77b4", &CardRound::em},
                           {"F1", "#aec7e8", &CardRound::f1},
                           {"stop-on-EOT", "#2ca02c", &CardRound::stop_rate},
                           {"over-refusal", "#d62728", &CardRound::over_refusal},
                           {"abstention", "#ff7f0e", &CardRound::abstention}};
constexpr size_t kNumMetrics = sizeof kMetrics / sizeof kMetrics[0];

}  // namespace

std::string render_rounds_svg(const std::vector<CardRound>& rounds, const std::string& title) {
  const double left = 50, right = 140, top = 40, ph = 260, bottom = 60;
  const double group = 30.0 + 16.0 * kNumMetrics;  // bars of one round plus a gap
  const double pw = std::max<double>(300, group * double(rounds.size()));
  const double W = left + pw + right, H = top + ph + bottom;
  auto Y = [&](double pct) { return top + ph - std::clamp(pct, 0.0, 100.0) / 100.0 * ph; };

  std::string svg = eval::svg_open(W, H, left, 16, title);
  for (int t = 0; t <= 100; t += 25) {
    svg += eval::svg_gridline(left, left + pw, Y(t), std::to_string(t) + "%");
  }
  svg += "<rect x=\"" + eval::svg_num(left) + "\" y=\"" + eval::svg_num(top) + "\" width=\"" + eval::svg_num(pw) + "\" height=\"" + eval::svg_num(ph) +
         "\" fill=\"none\" stroke=\"#444\"/>\n";
  for (size_t r = 0; r < rounds.size(); ++r) {
    const double x0 = left + 15 + group * double(r);
    for (size_t k = 0; k < kNumMetrics; ++k) {
      const double v = rounds[r].*kMetrics[k].field, x = x0 + 16.0 * double(k);
      svg += "<rect x=\"" + eval::svg_num(x) + "\" y=\"" + eval::svg_num(Y(v)) + "\" width=\"14\" height=\"" + eval::svg_num(Y(0) - Y(v)) +
             "\" fill=\"" + kMetrics[k].color + "\"><title>" + kMetrics[k].name + " " + eval::svg_num(v) +
             "%</title></rect>\n";
    }
    const double mid = x0 + 8.0 * kNumMetrics;
    svg += "<text x=\"" + eval::svg_num(mid) + "\" y=\"" + eval::svg_num(top + ph + 16) + "\" text-anchor=\"middle\">round " +
           std::to_string(rounds[r].round) + "</text>\n<text x=\"" + eval::svg_num(mid) + "\" y=\"" + eval::svg_num(top + ph + 30) +
           "\" text-anchor=\"middle\" font-size=\"10\">" + eval::svg_escape(rounds[r].name) + "</text>\n";
  }
  for (size_t k = 0; k < kNumMetrics; ++k) {
    const double ly = top + 14 + 18.0 * double(k);
    svg += "<rect x=\"" + eval::svg_num(left + pw + 12) + "\" y=\"" + eval::svg_num(ly - 9) + "\" width=\"10\" height=\"10\" fill=\"" +
           kMetrics[k].color + "\"/>\n<text x=\"" + eval::svg_num(left + pw + 26) + "\" y=\"" + eval::svg_num(ly) + "\">" +
           kMetrics[k].name + "</text>\n";
  }
  svg += "</svg>\n";
  return svg;
}

}  // namespace amxqa::train
