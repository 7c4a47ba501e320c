// amxqa-train: the offline trainer. Everything lives in amxqa_trainer_lib;
// the subcommands are in trainer/cli/.
#include "cli/commands.h"

int main(int argc, char** argv) { return amxqa::train::run_cli(argc, argv); }
