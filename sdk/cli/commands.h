// commands.h — the amxqa subcommands. Each takes the whole argv and the index
// of its first own argument, handles its own --help, and returns the exit code.
#pragma once

namespace amxqa::cli {

int cmd_answer(int argc, char** argv, int first);
int cmd_inspect(int argc, char** argv, int first);
int cmd_cpu(int argc, char** argv, int first);
int cmd_verify(int argc, char** argv, int first);
int cmd_shell(int argc, char** argv, int first);
int cmd_squad(int argc, char** argv, int first);
int cmd_calibrate(int argc, char** argv, int first);
int cmd_serve(int argc, char** argv, int first);
int cmd_batch(int argc, char** argv, int first);

}  // namespace amxqa::cli
