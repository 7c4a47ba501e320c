// metrics_log.h — the run's JSONL log (one object per line, appended, flushed
// per line so a killed run keeps everything it logged) and the live progress
// line on stderr (step, tokens, tok/s, loss, lr, ETA): redrawn at most once a
// second on a terminal, a line of its own every 10 s in a log (progress_line.h).
#pragma once
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>

#include <nlohmann/json.hpp>

#include "count_text.h"     // format_count
#include "json_members.h"   // dump_json
#include "progress_line.h"  // console::ProgressLine

namespace amxqa::train {

// One record of the log, eval.json or rounds.jsonl; keys stay in the order written.
using LogLine = nlohmann::ordered_json;

class MetricsLog {
 public:
  MetricsLog() = default;
  explicit MetricsLog(const std::string& path);  // appends; throws if unwritable
  ~MetricsLog();
  MetricsLog(const MetricsLog&) = delete;
  MetricsLog& operator=(const MetricsLog&) = delete;
  void write(const LogLine& line);  // one line; NaN and infinities become null
  const std::string& path() const { return path_; }
 private:
  std::FILE* f_ = nullptr;
  std::string path_;
};

class Progress {
 public:
  Progress(std::string stage, uint64_t total_steps, uint64_t first_step);
  // Measures tok/s when a second has passed (or when force) and shows the
  // line (console::ProgressLine decides whether it prints).
  void update(uint64_t step, uint64_t tokens, double loss, double lr, bool force = false);
  void finish();  // ends a terminal's line
  double tokens_per_second() const { return tok_s_; }
  double elapsed() const;
 private:
  using Clock = std::chrono::steady_clock;
  std::string stage_;
  uint64_t total_, first_step_, first_tokens_ = ~0ull;
  Clock::time_point start_, last_;
  double tok_s_ = 0;
  console::ProgressLine line_{stderr, 0.0, console::kLogLineSeconds};
};

std::string format_duration(double seconds);  // "1h02m", "3m05s", "12s"

}  // namespace amxqa::train
