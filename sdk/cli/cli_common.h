// cli_common.h — what the amxqa subcommands share: one-line errors, the
// default-model lookup, --isa parsing, reading a file or stdin, and opening
// the model (mmap) and its session (one aligned buffer) through amxqa.hpp.
#pragma once
#include <string>

#include "amxqa.hpp"
#include "cli_args.h"

namespace amxqa::cli {

// Exit codes: 0 success, 1 a failure while working, 2 a usage error.
enum : int { kExitOk = 0, kExitFailure = 1, kExitUsage = 2 };

// Prints "amxqa <cmd>: <message>" on stderr; returns kExitFailure / kExitUsage.
int fail(const char* cmd, const std::string& message);
int usage_error(const char* cmd, const std::string& message);

// Handles --help and parse errors uniformly. Returns -1 to continue, else the exit code.
int check_args(const char* cmd, const Args& args, const char* help_text);

// --model if given; else paths::default_model() (sdk/common/amxqa_paths.h:
// $AMXQA_MODEL, the installed share/amxqa/default.amxqa, the checkout's model).
std::string resolve_model_path(const Args& args);

// "scalar", "avx2", "avx512", "amx", "amx-emulated" or "auto".
bool parse_isa(const std::string& name, amxqa_isa* isa);

// Whole file, or all of stdin for "-". Returns false with *error set.
bool read_input(const std::string& path, std::string* out, std::string* error);

// Opens the resolved model; on failure prints the error and returns false.
bool open_model(const char* cmd, const Args& args, amxqa::Model* model);

// Session options from --isa, --max-passage-tokens, --split-words and the
// threshold flags below; false (printed) on a bad value.
bool session_options(const char* cmd, const Args& args, amxqa_session_options* options);
// --threshold T (a number, or inf: never abstain) or --threshold-file F (the
// JSON `amxqa calibrate --out` writes: its best.threshold) override the
// model's no-answer threshold.
bool threshold_option(const char* cmd, const Args& args, amxqa_session_options* options);
#define AMXQA_CLI_THRESHOLD_HELP                                                                \
  "  --threshold T           no-answer threshold (default: the model's calibrated one; inf:\n" \
  "                          never abstain)\n"                                                 \
  "  --threshold-file F      the threshold `amxqa calibrate --out F` chose\n"

// Opens a session; on failure prints the error and returns false.
bool open_session(const char* cmd, const amxqa::Model& model, const amxqa_session_options& options,
                  amxqa::Session* session);

}  // namespace amxqa::cli
