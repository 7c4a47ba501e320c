// progress_bar.h — progress of a question set on stderr (console::ProgressLine):
// one self-overwriting bar on a terminal (every 100 ms); in a log, the same
// figures as a line of its own every 10 s and at the end.
#pragma once
#include <chrono>
#include <cstddef>
#include <string>

#include "progress_line.h"

namespace amxqa::cli {

class ProgressBar {
 public:
  explicit ProgressBar(size_t total);
  // Shows the bar when the line is due (always at done == total).
  void update(size_t done, const std::string& extra);
  void finish();
  double elapsed_seconds() const;

 private:
  size_t total_;
  console::ProgressLine line_;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace amxqa::cli
