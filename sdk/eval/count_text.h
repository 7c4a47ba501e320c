// count_text.h — a count in three significant figures with an SI suffix
// ("12.3k", "4.50M", "1.20G"): the trainer's progress lines and the plot's
// axis ticks print counts the same way.
#pragma once
#include <cstdio>
#include <string>

namespace amxqa::eval {

inline std::string format_count(double n) {
  char buf[32];
  if (n >= 1e9) std::snprintf(buf, sizeof buf, "%.2fG", n / 1e9);
  else if (n >= 1e6) std::snprintf(buf, sizeof buf, "%.2fM", n / 1e6);
  else if (n >= 1e3) std::snprintf(buf, sizeof buf, "%.1fk", n / 1e3);
  else std::snprintf(buf, sizeof buf, "%.0f", n);
  return buf;
}

}  // namespace amxqa::eval
