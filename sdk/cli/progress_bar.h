// progress_bar.h — progress on stderr: one self-overwriting line on a
// terminal; otherwise one plain line per 10% so logs stay readable.
#pragma once
#include <chrono>
#include <cstddef>
#include <string>

namespace amxqa::cli {

class ProgressBar {
 public:
  explicit ProgressBar(size_t total);
  // Redraws at most every 100 ms (and always at done == total).
  void update(size_t done, const std::string& extra);
  void finish();
  double elapsed_seconds() const;

 private:
  size_t total_;
  bool enabled_;  // stderr is a terminal
  size_t last_decile_ = 0;
  std::chrono::steady_clock::time_point start_, last_draw_;
};

}  // namespace amxqa::cli
