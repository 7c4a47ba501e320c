#include "worker_options.h"

#include <string>

namespace amxqa::cli {

const char kWorkerOptionsHelp[] =
    "  --model M               model file (default: $AMXQA_MODEL, then the bundled default.amxqa)\n"
    "  --threads N             worker threads, one session each, all made at start (default 1)\n"
    AMXQA_CLI_THRESHOLD_HELP
    AMXQA_CLI_SESSION_HELP
    "A request's own \"max_answer_tokens\", \"windows\", \"window_overlap\" and \"whole_words\"\n"
    "override the last four for that request (max_answer_tokens up to --max-answer-tokens).\n";

namespace {
// More sessions than this is a typo, not a machine: each holds a workspace.
constexpr size_t kMaxThreads = 256;
}  // namespace

void add_worker_options(App& app, WorkerArgs* args) {
  add_session_options(app, &args->session);
  add_threshold_options(app, &args->session);
  app.add_option("--threads", args->threads)->check(CLI::Range(size_t{1}, kMaxThreads));
}

bool open_workers(const char* cmd, const WorkerArgs& args, const amxqa_session_options& options,
                  amxqa::Model* model, amxqa::serve::SessionPool* pool) {
  if (!open_model(cmd, args.session, model)) return false;
  std::string error;
  if (!pool->open(*model, options, args.threads, &error)) {
    fail(cmd, error);
    return false;
  }
  return true;
}

}  // namespace amxqa::cli
