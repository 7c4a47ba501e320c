// svg_text.h — the pieces every hand-written SVG (model card plots, training
// curves, bench report) shares: a coordinate with one decimal, XML-escaped
// text, the document's opening with its title, and a labelled grid line.
#pragma once
#include <cstdio>
#include <string>

namespace amxqa::eval {

inline std::string svg_num(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.1f", v);
  return b;
}

inline std::string svg_escape(const std::string& s) {
  std::string o;
  for (char c : s) {
    if (c == '<') o += "&lt;";
    else if (c == '>') o += "&gt;";
    else if (c == '&') o += "&amp;";
    else if (c == '"') o += "&quot;";
    else o += c;
  }
  return o;
}

// The <svg> element on a white background, with a title at (title_x, 24).
inline std::string svg_open(double width, double height, double title_x, int title_size, const std::string& title,
                            const std::string& title_attrs = "") {
  return "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + svg_num(width) + "\" height=\"" + svg_num(height) +
         "\" font-family=\"sans-serif\" font-size=\"12\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
         "<text x=\"" + svg_num(title_x) + "\" y=\"24\" font-size=\"" + std::to_string(title_size) + "\"" + title_attrs + ">" +
         svg_escape(title) + "</text>\n";
}

// A light horizontal grid line from x0 to x1 at y, labelled at its left end.
inline std::string svg_gridline(double x0, double x1, double y, const std::string& label) {
  return "<line x1=\"" + svg_num(x0) + "\" x2=\"" + svg_num(x1) + "\" y1=\"" + svg_num(y) + "\" y2=\"" + svg_num(y) +
         "\" stroke=\"#eee\"/>\n<text x=\"" + svg_num(x0 - 6) + "\" y=\"" + svg_num(y + 4) + "\" text-anchor=\"end\">" +
         svg_escape(label) + "</text>\n";
}

}  // namespace amxqa::eval
