// `amxqa-train diagnose CKPT|MODEL [--recipe R]`
#include <cstdio>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "stages/diagnose.h"

namespace amxqa::train {

int cmd_diagnose(int argc, char** argv) {
  command_line::App app("amxqa-train diagnose");
  std::vector<std::string> paths;
  std::string recipe;
  app.add_option("CKPT|MODEL", paths);
  app.add_option("--recipe", recipe);
  const bool help_asked = parse_command(app, argc, argv);
  const char* help =
      "usage: amxqa-train diagnose CKPT|MODEL [--recipe R]\n"
      "\nReports the paper's four failures: (1) expert usage histogram + participation ratios of expert\n"
      "usage and of every RMSNorm gain, with a collapse warning; (2) expert insertion check; (3) the\n"
      "routing statistic (window/prefix, shuffle ablation: loss with the statistic shuffled); (4) never-\n"
      "trained vocabulary rows and their logits. A checkpoint uses the recipe.recipe and tokenizer.tok\n"
      "of its run folder unless --recipe is given.\n";
  if (help_asked) {
    std::fputs(help, stdout);
    return 0;
  }
  if (paths.size() != 1) {
    std::fputs(help, stderr);
    return 2;
  }
  const std::string& path = paths[0];
  if (is_model_file(path)) diagnose_model_file(path, stdout);
  else diagnose_checkpoint(path, recipe, stdout);
  return 0;
}

}  // namespace amxqa::train
