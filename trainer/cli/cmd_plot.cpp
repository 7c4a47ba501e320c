// `amxqa-train plot LOG.jsonl -o out.svg`
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "report/metrics_plot.h"

namespace amxqa::train {

int cmd_plot(int argc, char** argv) {
  command_line::App app("amxqa-train plot");
  std::vector<std::string> logs;
  std::string output, title;
  app.add_option("LOG", logs);
  app.add_option("-o,--output", output);
  app.add_option("--title", title);
  const bool help_asked = parse_command(app, argc, argv);
  const char* help =
      "usage: amxqa-train plot LOG.jsonl -o out.svg [--title T]\n"
      "\nDraws a run's metrics log (out/metrics.jsonl) as SVG: training and validation loss, tokens/s,\n"
      "and the collapse diagnostics (RMSNorm-gain and expert-usage participation ratios), over tokens\n"
      "trained, with stage boundaries marked.\n";
  if (help_asked) {
    std::fputs(help, stdout);
    return 0;
  }
  if (logs.size() != 1 || output.empty()) {
    std::fputs(help, stderr);
    return 2;
  }
  eval::PlotData d = read_metrics_log(logs[0]);
  std::ofstream f(output, std::ios::binary);
  f << eval::render_svg(d, title.empty() ? "amxqa-train: " + logs[0] : title);
  if (!f) throw std::runtime_error("cannot write " + output);
  std::fprintf(stderr, "wrote %s\n", output.c_str());
  return 0;
}

}  // namespace amxqa::train
