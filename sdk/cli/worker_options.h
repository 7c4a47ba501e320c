// worker_options.h — the options `amxqa serve` and `amxqa batch` share: the
// session options (--isa, --max-passage-tokens, --split-words), --threshold
// (the session's no-answer threshold) and --threads, and opening one session
// per worker thread from them.
#pragma once
#include <cstddef>

#include "cli_common.h"
#include "qa_engine.h"

namespace amxqa::cli {

// What the options below hold.
struct WorkerArgs {
  SessionArgs session;
  size_t threads = 1;  // --threads N
};

// Declares the session and threshold options and --threads.
void add_worker_options(App& app, WorkerArgs* args);

// Their --help lines (with --split-words), to follow a command's own.
extern const char kWorkerOptionsHelp[];

// Opens the model and `threads` sessions; false (error printed) on failure.
bool open_workers(const char* cmd, const WorkerArgs& args, const amxqa_session_options& options,
                  amxqa::Model* model, amxqa::serve::SessionPool* pool);

}  // namespace amxqa::cli
