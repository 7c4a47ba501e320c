#include "progress_bar.h"

#include <cstdio>

namespace amxqa::cli {

ProgressBar::ProgressBar(size_t total)
    : total_(total), line_(stderr, 0.1, console::kLogLineSeconds), start_(std::chrono::steady_clock::now()) {}

double ProgressBar::elapsed_seconds() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

void ProgressBar::update(size_t done, const std::string& extra) {
  if (done == 0 || !line_.due(done >= total_)) return;
  constexpr int kWidth = 30;
  const int filled = total_ ? static_cast<int>(kWidth * done / total_) : kWidth;
  char bar[kWidth + 1];
  for (int i = 0; i < kWidth; ++i) bar[i] = i < filled ? '#' : '.';
  bar[kWidth] = '\0';
  const double secs = elapsed_seconds();
  const double rate = secs > 0 ? static_cast<double>(done) / secs : 0.0;
  const double eta = rate > 0 ? static_cast<double>(total_ - done) / rate : 0.0;
  char text[160];
  std::snprintf(text, sizeof text, "[%s] %zu/%zu  %.1f questions/s  ETA %.0fs  ", bar, done, total_, rate, eta);
  line_.show(text + extra, done >= total_);
}

void ProgressBar::finish() { line_.finish(); }

}  // namespace amxqa::cli
