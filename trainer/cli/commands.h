// commands.h — amxqa-train's subcommands. Exit codes: 0 ok, 1 failure,
// 2 usage error, 130 interrupted (a checkpoint was written; rerun with --resume).
#pragma once
#include "command_line.h"

namespace amxqa::train {

int run_cli(int argc, char** argv);

// Parses a subcommand's arguments, argv[2..), into app (CLI11 through
// sdk/common/command_line.h). True when --help was given; a parse error throws
// std::invalid_argument, which run_cli reports on one line with exit 2.
bool parse_command(command_line::App& app, int argc, char** argv);

// Subcommands with their own option sets (cli/cmd_*.cpp).
int cmd_eval(int argc, char** argv);
int cmd_diagnose(int argc, char** argv);
int cmd_plot(int argc, char** argv);
int cmd_finetune(int argc, char** argv);
int cmd_restamp(int argc, char** argv);

}  // namespace amxqa::train
