#include "report/metrics_log.h"

#include <cmath>
#include <stdexcept>

#include "json_members.h"

namespace amxqa::train {

MetricsLog::MetricsLog(const std::string& path) : path_(path) {
  f_ = std::fopen(path.c_str(), "ab");
  if (!f_) throw std::runtime_error("cannot write metrics log " + path);
}

MetricsLog::~MetricsLog() {
  if (f_) std::fclose(f_);
}

void MetricsLog::write(const LogLine& line) {
  if (!f_) return;
  std::string s = eval::dump_json(line);
  s += '\n';
  std::fwrite(s.data(), 1, s.size(), f_);
  std::fflush(f_);
}

std::string format_duration(double s) {
  if (!std::isfinite(s) || s < 0) return "?";
  char buf[32];
  long t = std::lround(s);
  if (t >= 3600) std::snprintf(buf, sizeof buf, "%ldh%02ldm", t / 3600, (t / 60) % 60);
  else if (t >= 60) std::snprintf(buf, sizeof buf, "%ldm%02lds", t / 60, t % 60);
  else std::snprintf(buf, sizeof buf, "%lds", t);
  return buf;
}

Progress::Progress(std::string stage, uint64_t total_steps, uint64_t first_step)
    : stage_(std::move(stage)), total_(total_steps), first_step_(first_step), start_(Clock::now()), last_(start_) {}

double Progress::elapsed() const { return std::chrono::duration<double>(Clock::now() - start_).count(); }

void Progress::update(uint64_t step, uint64_t tokens, double loss, double lr, bool force) {
  auto now = Clock::now();
  if (first_tokens_ == ~0ull) first_tokens_ = tokens;
  if (!force && std::chrono::duration<double>(now - last_).count() < 1.0) return;
  last_ = now;
  double el = elapsed();
  // Rates count only this process's work (a resumed run starts its clock anew).
  tok_s_ = el > 0 ? (tokens - first_tokens_) / el : 0;
  double done = static_cast<double>(step - first_step_);
  double eta = done > 0 ? el / done * static_cast<double>(total_ - step) : NAN;
  char text[256];
  std::snprintf(text, sizeof text, "[%s] step %llu/%llu  tokens %s  %s tok/s  loss %.4f  lr %.2e  ETA %s",
                stage_.c_str(), static_cast<unsigned long long>(step), static_cast<unsigned long long>(total_),
                eval::format_count(static_cast<double>(tokens)).c_str(), eval::format_count(tok_s_).c_str(), loss,
                lr, format_duration(eta).c_str());
  line_.show(text, force);
}

void Progress::finish() { line_.finish(); }

}  // namespace amxqa::train
