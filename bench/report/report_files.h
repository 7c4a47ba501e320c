// report_files.h — the per-CPU result files: <cpu-id>.json (identity,
// rooflines, every benchmark run, the summary), <cpu-id>.md (the same for
// people) and <cpu-id>.svg (a hand-written bar chart the .md embeds).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "report/capture_reporter.h"
#include "report/cpu_identity.h"
#include "report/summary.h"

namespace amxqa::bench {

struct RunInfo {
  bool quick = false;
  std::string command_line;
  double wall_seconds = 0;
  int64_t harness_peak_rss_bytes = 0;
  std::string started_utc;
  std::string load_average_start, load_average_end;  // /proc/loadavg: was the machine idle?
};

std::string render_json(const CpuIdentity& cpu, const Summary& s, const CaptureReporter& runs,
                        const RunInfo& run);
std::string render_markdown(const CpuIdentity& cpu, const Summary& s, const CaptureReporter& runs,
                            const RunInfo& run);
std::string render_svg(const Summary& s, const CaptureReporter& runs);

// Writes the three files into dir (created if missing). Returns false and
// sets *error on an I/O failure; *written lists the paths written.
bool write_report_files(const std::string& dir, const CpuIdentity& cpu, const Summary& s,
                        const CaptureReporter& runs, const RunInfo& run,
                        std::vector<std::string>* written, std::string* error);

}  // namespace amxqa::bench
