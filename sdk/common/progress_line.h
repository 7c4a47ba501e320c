// progress_line.h — the one way amxqa and amxqa-train show
// progress. On a terminal, one line redrawn in place ("\r" + text + erase to
// end of line), at most every `terminal_seconds`. Anywhere else (a log file, a
// pipe) "\r" would join every update into one endless line, so the same text
// is printed as a line of its own, ended by "\n", at most every
// `log_seconds` (kLogLineSeconds) and whenever the caller forces it (the
// last step), so `tail` and `grep` work on a run's log.
#pragma once
#include <chrono>
#include <cstdio>
#include <string>

namespace amxqa::console {

inline constexpr double kLogLineSeconds = 10;

class ProgressLine {
 public:
  // `terminal`: whether `out` is a terminal (isatty of its descriptor); the
  // three-argument form lets a test choose.
  explicit ProgressLine(std::FILE* out = stderr, double terminal_seconds = 0.1,
                        double log_seconds = kLogLineSeconds);
  ProgressLine(std::FILE* out, bool terminal, double terminal_seconds, double log_seconds);
  // True when this update would be printed (the interval has passed, or
  // force): callers build the text only then. The first update always shows.
  bool due(bool force = false) const;
  // Prints `text` (one line, no "\n") if due(force); returns whether it did.
  bool show(const std::string& text, bool force = false);
  // Ends the line in place on a terminal (a no-op elsewhere: every line is
  // already ended), so other output starts on a fresh line.
  void finish();
  bool terminal() const { return terminal_; }

 private:
  using Clock = std::chrono::steady_clock;
  std::FILE* out_;
  bool terminal_;
  double interval_;
  bool shown_ = false, open_ = false;  // anything shown yet; a terminal line awaits its "\n"
  Clock::time_point last_;
};

}  // namespace amxqa::console
