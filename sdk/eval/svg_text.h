// svg_text.h — the two text helpers every hand-written SVG (model card,
// bench report) needs: a coordinate with one decimal, and XML-escaped text.
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

}  // namespace amxqa::eval
