// cli_common.h — what the amxqa subcommands share: parsing through CLI11
// (sdk/common/command_line.h) with one-line errors, the options of every
// command that runs the model, the default-model lookup, reading a file or
// stdin, and opening the model (mmap) and its session (one aligned buffer)
// through amxqa.hpp.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

#include "amxqa.hpp"
#include "command_line.h"

namespace amxqa::cli {

// Exit codes: 0 success, 1 a failure while working, 2 a usage error.
enum : int { kExitOk = 0, kExitFailure = 1, kExitUsage = 2 };

// Prints "amxqa <cmd>: <message>" on stderr; returns kExitFailure / kExitUsage.
int fail(const char* cmd, const std::string& message);
int usage_error(const char* cmd, const std::string& message);

using command_line::App;

// Parses argv[first..argc) into app: --help prints help_text on stdout (exit 0),
// a parse error is one usage line (exit 2). Returns -1 to continue, else the exit code.
int parse_args(const char* cmd, App& app, int argc, char** argv, int first, const std::string& help_text);

// What the options of a command that runs the model hold; unset ones take
// the library's or the model's defaults.
struct SessionArgs {
  std::optional<std::string> model;           // --model M
  std::optional<std::string> isa;             // --isa ISA
  std::optional<uint32_t> max_passage_tokens;  // --max-passage-tokens N
  bool split_words = false;                   // --split-words
  std::optional<uint32_t> max_answer_tokens;  // --max-answer-tokens N
  bool windows = false;                       // --windows
  std::optional<uint32_t> window_overlap;     // --window-overlap N
  std::optional<std::string> threshold;       // --threshold T
  std::optional<std::string> threshold_file;  // --threshold-file F
};

// Declares --model.
void add_model_option(App& app, SessionArgs* args);

// Declares --model, --isa, --max-passage-tokens, --max-answer-tokens,
// --windows, --window-overlap and --split-words (AMXQA_CLI_SESSION_HELP).
void add_session_options(App& app, SessionArgs* args);
// Declares --threshold and --threshold-file (which exclude each other).
void add_threshold_options(App& app, SessionArgs* args);

// The command line of `inspect` and `verify`: [MODEL] (or --model M) [--json].
// Sets *path to the model file; returns as parse_args.
int parse_model_file_args(const char* cmd, int argc, char** argv, int first, const std::string& help_text,
                          std::string* path, bool* json);

// --model if given; else paths::default_model() (sdk/common/amxqa_paths.h:
// $AMXQA_MODEL, the installed share/amxqa/default.amxqa, the checkout's model).
std::string resolve_model_path(const SessionArgs& args);

// "scalar", "avx2", "avx512", "amx", "amx-emulated", "neon", "neon-dotprod" or "auto".
bool parse_isa(const std::string& name, amxqa_isa* isa);

// Whole file, or all of stdin for "-". Returns false with *error set.
bool read_input(const std::string& path, std::string* out, std::string* error);

// Opens the resolved model; on failure prints the error and returns false.
bool open_model(const char* cmd, const SessionArgs& args, amxqa::Model* model);

// Session options from the flags above and the threshold flags below; false
// (printed) on a bad value.
#define AMXQA_CLI_SESSION_HELP                                                                   \
  "  --isa ISA               auto (default), scalar, avx2, avx512, amx, amx-emulated, neon,\n"  \
  "                          neon-dotprod\n"                                                    \
  "  --max-passage-tokens N  tokens a passage (or, with --windows, a window) may have (default 4096)\n" \
  "  --windows               answer a longer passage in overlapping windows (README \"Request fields\")\n" \
  "  --window-overlap N      tokens consecutive windows share (default 0)\n"                   \
  "  --max-answer-tokens N   tokens an answer may have (default 32)\n"                          \
  "  --split-words           let a span start or end inside a word (whole_words false; default: whole words)\n"

bool session_options(const char* cmd, const SessionArgs& args, amxqa_session_options* options);
// --threshold T (a number, or inf: never abstain) or --threshold-file F (the
// JSON `amxqa calibrate --out` writes: its best.threshold) override the
// model's no-answer threshold.
bool threshold_option(const char* cmd, const SessionArgs& args, amxqa_session_options* options);
#define AMXQA_CLI_THRESHOLD_HELP                                                                \
  "  --threshold T           no-answer threshold (default: the model's calibrated one; inf:\n" \
  "                          never abstain)\n"                                                 \
  "  --threshold-file F      the threshold `amxqa calibrate --out F` chose\n"

// A failed answer's message in this CLI's terms: a passage or question over
// the session's caps names the flags that raise them, not the C options.
std::string answer_error(const amxqa::Status& status, const amxqa_session_options& options);

// Opens a session; on failure prints the error and returns false.
bool open_session(const char* cmd, const amxqa::Model& model, const amxqa_session_options& options,
                  amxqa::Session* session);

}  // namespace amxqa::cli
