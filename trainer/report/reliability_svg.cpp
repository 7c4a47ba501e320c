#include "report/reliability_svg.h"

#include <algorithm>
#include <cmath>

#include "svg_text.h"

namespace amxqa::train {

std::vector<ReliabilityBin> reliability_bins(const std::vector<Judged>& judged, size_t bins) {
  std::vector<ReliabilityBin> out(bins);
  for (size_t b = 0; b < bins; ++b) out[b].lo = double(b) / bins, out[b].hi = double(b + 1) / bins;
  for (const Judged& j : judged) {
    const double c = std::clamp(j.confidence, 0.0, 1.0);
    ReliabilityBin& b = out[std::min(bins - 1, static_cast<size_t>(c * bins))];
    ++b.n;
    b.mean_confidence += c;
    b.accuracy += j.correct;
  }
  for (ReliabilityBin& b : out)
    if (b.n) b.mean_confidence /= b.n, b.accuracy /= b.n;
  return out;
}

double expected_calibration_error(const std::vector<ReliabilityBin>& bins) {
  size_t total = 0;
  double e = 0;
  for (const ReliabilityBin& b : bins) total += b.n;
  for (const ReliabilityBin& b : bins) e += double(b.n) * std::fabs(b.accuracy - b.mean_confidence);
  return total ? 100.0 * e / double(total) : 0.0;
}

std::string render_reliability_svg(const std::vector<ReliabilityBin>& bins, const std::string& title) {
  const double left = 60, top = 40, pw = 320, ph = 320, bottom = 60, right = 30;
  const double W = left + pw + right, H = top + ph + bottom;
  auto X = [&](double v) { return left + v * pw; };
  auto Y = [&](double v) { return top + ph - v * ph; };
  std::string svg = eval::svg_open(W, H, left, 15, title);
  for (int t = 0; t <= 4; ++t) {
    const double v = t / 4.0;
    svg += eval::svg_gridline(left, left + pw, Y(v), std::to_string(25 * t) + "%");
    svg += "<text x=\"" + eval::svg_num(X(v)) + "\" y=\"" +
           eval::svg_num(top + ph + 16) + "\" text-anchor=\"middle\">" + std::to_string(25 * t) + "%</text>\n";
  }
  for (const ReliabilityBin& b : bins) {
    if (!b.n) continue;
    const double x = X(b.lo) + 2, w = X(b.hi) - X(b.lo) - 4;
    svg += "<rect x=\"" + eval::svg_num(x) + "\" y=\"" + eval::svg_num(Y(b.accuracy)) + "\" width=\"" + eval::svg_num(w) +
           "\" height=\"" + eval::svg_num(Y(0) - Y(b.accuracy)) + "\" fill=\"#1f77b4\"><title>confidence " +
           eval::svg_num(100 * b.mean_confidence) + "%, right " + eval::svg_num(100 * b.accuracy) + "%, n " + std::to_string(b.n) +
           "</title></rect>\n<text x=\"" + eval::svg_num(x + w / 2) + "\" y=\"" + eval::svg_num(Y(b.accuracy) - 3) +
           "\" text-anchor=\"middle\" font-size=\"9\">" + std::to_string(b.n) + "</text>\n";
  }
  svg += "<line x1=\"" + eval::svg_num(X(0)) + "\" y1=\"" + eval::svg_num(Y(0)) + "\" x2=\"" + eval::svg_num(X(1)) + "\" y2=\"" +
         eval::svg_num(Y(1)) + "\" stroke=\"#d62728\" stroke-dasharray=\"4 3\"/>\n";
  svg += "<rect x=\"" + eval::svg_num(left) + "\" y=\"" + eval::svg_num(top) + "\" width=\"" + eval::svg_num(pw) + "\" height=\"" +
         eval::svg_num(ph) + "\" fill=\"none\" stroke=\"#444\"/>\n";
  svg += "<text x=\"" + eval::svg_num(left + pw / 2) + "\" y=\"" + eval::svg_num(top + ph + 36) +
         "\" text-anchor=\"middle\">reported probability (bars: share right; dashed: calibrated; labels: n)</text>\n";
  svg += "<text x=\"16\" y=\"" + eval::svg_num(top + ph / 2) + "\" transform=\"rotate(-90 16 " + eval::svg_num(top + ph / 2) +
         ")\" text-anchor=\"middle\">right</text>\n</svg>\n";
  return svg;
}

}  // namespace amxqa::train
