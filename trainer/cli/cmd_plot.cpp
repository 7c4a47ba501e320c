// `amxqa-train plot LOG.jsonl -o out.svg`
#include <cstdio>
#include <fstream>

#include "cli/args.h"
#include "cli/commands.h"
#include "report/plot_svg.h"

namespace amxqa::train {

int cmd_plot(int argc, char** argv) {
  Args a = parse_args(argc, argv, 2, {}, {"output", "title"});
  const char* help =
      "usage: amxqa-train plot LOG.jsonl -o out.svg [--title T]\n"
      "\nDraws a run's metrics log (out/metrics.jsonl) as SVG: training and validation loss, tokens/s,\n"
      "and the collapse diagnostics (RMSNorm-gain and expert-usage participation ratios), over tokens\n"
      "trained, with stage boundaries marked.\n";
  if (a.help) {
    std::fputs(help, stdout);
    return 0;
  }
  if (a.positional.size() != 1 || !a.has("output")) {
    std::fputs(help, stderr);
    return 2;
  }
  PlotData d = read_metrics_log(a.positional[0]);
  std::ofstream f(a.get("output"), std::ios::binary);
  f << render_svg(d, a.get("title", "amxqa-train: " + a.positional[0]));
  if (!f) throw std::runtime_error("cannot write " + a.get("output"));
  std::fprintf(stderr, "wrote %s\n", a.get("output").c_str());
  return 0;
}

}  // namespace amxqa::train
