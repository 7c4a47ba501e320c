// progress_line.cpp — see progress_line.h.
#include "progress_line.h"

#include <unistd.h>

namespace amxqa::console {

ProgressLine::ProgressLine(std::FILE* out, double terminal_seconds, double log_seconds)
    : ProgressLine(out, out && isatty(fileno(out)), terminal_seconds, log_seconds) {}

ProgressLine::ProgressLine(std::FILE* out, bool terminal, double terminal_seconds, double log_seconds)
    : out_(out), terminal_(terminal), interval_(terminal ? terminal_seconds : log_seconds) {}

bool ProgressLine::due(bool force) const {
  return force || !shown_ || std::chrono::duration<double>(Clock::now() - last_).count() >= interval_;
}

bool ProgressLine::show(const std::string& text, bool force) {
  if (!due(force)) return false;
  last_ = Clock::now();
  shown_ = true;
  if (terminal_) {
    std::fprintf(out_, "\r%s\x1b[K", text.c_str());
    open_ = true;
  } else {
    std::fprintf(out_, "%s\n", text.c_str());
  }
  std::fflush(out_);
  return true;
}

void ProgressLine::finish() {
  if (!open_) return;
  std::fputc('\n', out_);
  std::fflush(out_);
  open_ = false;
}

}  // namespace amxqa::console
