// commands.h — amxqa-train's subcommands. Exit codes: 0 ok, 1 failure,
// 2 usage error, 130 interrupted (a checkpoint was written; rerun with --resume).
#pragma once

namespace amxqa::train {

int run_cli(int argc, char** argv);

// Subcommands with their own option sets (cli/cmd_*.cpp).
int cmd_eval(int argc, char** argv);
int cmd_diagnose(int argc, char** argv);
int cmd_plot(int argc, char** argv);

}  // namespace amxqa::train
