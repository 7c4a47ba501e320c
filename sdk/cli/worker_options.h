// worker_options.h — the options `amxqa serve` and `amxqa batch` share: the
// session options (--isa, --max-passage-tokens, --split-words), --threshold
// (the session's no-answer threshold) and --threads, and opening one session
// per worker thread from them.
#pragma once
#include <cstddef>

#include "cli_common.h"
#include "qa_engine.h"

namespace amxqa::cli {

// The option names parse_worker_options reads, for an ArgSpec.
constexpr size_t kWorkerOptionCount = 6;  // model isa max-passage-tokens threshold threshold-file threads
extern const char* const kWorkerOptionNames[kWorkerOptionCount];

// Their --help lines (with --split-words), to follow a command's own.
extern const char kWorkerOptionsHelp[];

// Reads the options above; false (usage error printed) on a bad value.
bool parse_worker_options(const char* cmd, const Args& args, amxqa_session_options* options, size_t* threads);

// Opens the model and `threads` sessions; false (error printed) on failure.
bool open_workers(const char* cmd, const Args& args, const amxqa_session_options& options, size_t threads,
                  amxqa::Model* model, amxqa::serve::SessionPool* pool);

}  // namespace amxqa::cli
