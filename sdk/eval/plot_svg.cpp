#include "plot_svg.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "count_text.h"
#include "svg_text.h"

namespace amxqa::eval {

namespace {

std::string tick_label(double v) {
  if (std::fabs(v) >= 1000) return format_count(v);
  char b[32];
  std::snprintf(b, sizeof b, "%.3g", v);
  return b;
}

}  // namespace

std::string render_svg(const PlotData& d, const std::string& title) {
  const double W = 960, PH = 250, left = 70, right = 200, top = 40, gap = 50;
  const double H = top + d.panels.size() * (PH + gap) + 20;
  double xmin = INFINITY, xmax = -INFINITY;
  for (const auto& p : d.panels)
    for (const auto& s : p.series)
      for (const auto& pt : s.points) xmin = std::min(xmin, pt.x), xmax = std::max(xmax, pt.x);
  if (!(xmax > xmin)) xmin = 0, xmax = std::isfinite(xmax) && xmax > 0 ? xmax : 1;
  const double pw = W - left - right;
  auto X = [&](double x) { return left + (x - xmin) / (xmax - xmin) * pw; };

  std::string svg = svg_open(W, H, left, 16, title);
  for (size_t pi = 0; pi < d.panels.size(); ++pi) {
    const PlotPanel& p = d.panels[pi];
    const double y0 = top + pi * (PH + gap);
    double ymin = INFINITY, ymax = -INFINITY;
    for (const auto& s : p.series)
      for (const auto& pt : s.points)
        if (std::isfinite(pt.y)) ymin = std::min(ymin, pt.y), ymax = std::max(ymax, pt.y);
    if (!(ymax > ymin)) {
      if (!std::isfinite(ymin)) ymin = 0, ymax = 1;
      else ymin -= 0.5, ymax += 0.5;
    }
    const double pad = (ymax - ymin) * 0.05;
    ymin -= pad;
    ymax += pad;
    auto Y = [&](double y) { return y0 + PH - (y - ymin) / (ymax - ymin) * PH; };
    svg += "<text x=\"" + svg_num(left) + "\" y=\"" + svg_num(y0 - 8) + "\" font-weight=\"bold\">" + svg_escape(p.title) + "</text>\n";
    svg += "<rect x=\"" + svg_num(left) + "\" y=\"" + svg_num(y0) + "\" width=\"" + svg_num(pw) + "\" height=\"" + svg_num(PH) +
           "\" fill=\"none\" stroke=\"#444\"/>\n";
    for (int t = 0; t <= 4; ++t) {
      double yv = ymin + (ymax - ymin) * t / 4, yy = Y(yv);
      svg += svg_gridline(left, left + pw, yy, tick_label(yv));
      double xv = xmin + (xmax - xmin) * t / 4;
      svg += "<text x=\"" + svg_num(X(xv)) + "\" y=\"" + svg_num(y0 + PH + 16) + "\" text-anchor=\"middle\">" +
             tick_label(xv) + "</text>\n";
    }
    for (const auto& st : d.stage_starts) {
      double xx = X(st.first);
      svg += "<line x1=\"" + svg_num(xx) + "\" x2=\"" + svg_num(xx) + "\" y1=\"" + svg_num(y0) + "\" y2=\"" + svg_num(y0 + PH) +
             "\" stroke=\"#999\" stroke-dasharray=\"4 3\"/>\n";
      if (pi == 0)
        svg += "<text x=\"" + svg_num(xx + 3) + "\" y=\"" + svg_num(y0 + 12) + "\" fill=\"#666\" font-size=\"10\">" +
               svg_escape(st.second) + "</text>\n";
    }
    double ly = y0 + 14;
    for (const auto& s : p.series) {
      if (s.points.empty()) continue;
      if (s.dots) {
        for (const auto& pt : s.points)
          if (std::isfinite(pt.y))
            svg += "<circle cx=\"" + svg_num(X(pt.x)) + "\" cy=\"" + svg_num(Y(pt.y)) + "\" r=\"3\" fill=\"" + s.color + "\"/>\n";
      } else {
        svg += "<polyline fill=\"none\" stroke=\"" + s.color + "\" stroke-width=\"1.5\" points=\"";
        for (const auto& pt : s.points)
          if (std::isfinite(pt.y)) svg += svg_num(X(pt.x)) + "," + svg_num(Y(pt.y)) + " ";
        svg += "\"/>\n";
      }
      svg += "<rect x=\"" + svg_num(left + pw + 12) + "\" y=\"" + svg_num(ly - 9) + "\" width=\"10\" height=\"10\" fill=\"" +
             s.color + "\"/>\n<text x=\"" + svg_num(left + pw + 26) + "\" y=\"" + svg_num(ly) + "\">" + svg_escape(s.name) +
             "</text>\n";
      ly += 18;
    }
  }
  svg += "<text x=\"" + svg_num(left + pw / 2) + "\" y=\"" + svg_num(H - 6) +
         "\" text-anchor=\"middle\">" + svg_escape(d.x_label) + "</text>\n</svg>\n";
  return svg;
}

}  // namespace amxqa::eval
