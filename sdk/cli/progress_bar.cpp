#include "progress_bar.h"

#include <unistd.h>

#include <cstdio>

namespace amxqa::cli {

ProgressBar::ProgressBar(size_t total)
    : total_(total), enabled_(isatty(STDERR_FILENO)), start_(std::chrono::steady_clock::now()), last_draw_() {}

double ProgressBar::elapsed_seconds() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

void ProgressBar::update(size_t done, const std::string& extra) {
  auto now = std::chrono::steady_clock::now();
  if (!enabled_) {
    // Not a terminal: one plain line per 10% so logs show progress without noise.
    size_t decile = total_ ? done * 10 / total_ : 10;
    if (decile <= last_decile_ || done == 0) return;
    last_decile_ = decile;
  } else if (done < total_ && now - last_draw_ < std::chrono::milliseconds(100)) {
    return;
  }
  last_draw_ = now;
  constexpr int kWidth = 30;
  const int filled = total_ ? static_cast<int>(kWidth * done / total_) : kWidth;
  char bar[kWidth + 1];
  for (int i = 0; i < kWidth; ++i) bar[i] = i < filled ? '#' : '.';
  bar[kWidth] = '\0';
  const double secs = elapsed_seconds();
  const double rate = secs > 0 ? static_cast<double>(done) / secs : 0.0;
  const double eta = rate > 0 ? static_cast<double>(total_ - done) / rate : 0.0;
  std::fprintf(stderr, "%s[%s] %zu/%zu  %.1f questions/s  ETA %.0fs  %s%s", enabled_ ? "\r" : "", bar, done,
               total_, rate, eta, extra.c_str(), enabled_ ? "\x1b[K" : "\n");
  std::fflush(stderr);
}

void ProgressBar::finish() {
  if (enabled_) std::fputc('\n', stderr);
}

}  // namespace amxqa::cli
