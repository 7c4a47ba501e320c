// report_files.h — the post-processor: from Google Benchmark's own JSON of
// one run (capture_reporter.h records it) to the per-CPU result files:
//   <cpu-id>.gbench.json  that document, as Google Benchmark wrote it, with
//                         the run's identity under context.amxqa
//   <cpu-id>.json         identity, rooflines, every run with its roofline
//                         fraction, the summary (what `compare` reads)
//   <cpu-id>.md / .svg    the same for people, and its bar chart
// `amxqa-bench report FILE.gbench.json [--out-dir DIR]` re-runs it on a saved
// document, on any machine.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "report/cpu_identity.h"
#include "report/json_file.h"
#include "report/result_set.h"
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

// What the result files say beyond the benchmarks: who ran them, how, and
// on which model. Stored in the document's context as "amxqa".
Json run_context(const CpuIdentity& cpu, const RunInfo& run, const Json& model);

// One run, read back from its document. read_report fills rooflines() from
// its phase-1 runs and adds the kernel roofline fractions; it throws
// std::runtime_error when the document is not an amxqa-bench run.
struct Report {
  CpuIdentity cpu;
  RunInfo run;
  Json model;  // the "model" object of <cpu-id>.json
  ResultSet runs;
  Summary summary;
};
Report read_report(const Json& gbench_doc);

std::string render_json(const Report& r);
std::string render_markdown(const Report& r);
std::string render_svg(const Report& r);

// Writes the four files into dir (created if missing). Returns false and
// sets *error on an I/O failure; *written lists the paths written.
bool write_report_files(const std::string& dir, const Json& gbench_doc, const Report& r,
                        std::vector<std::string>* written, std::string* error);

// `amxqa-bench report FILE.gbench.json [--out-dir DIR]` (default: FILE's folder).
int report_main(int argc, char** argv);

}  // namespace amxqa::bench
