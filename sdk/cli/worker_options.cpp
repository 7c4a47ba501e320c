#include "worker_options.h"

#include <string>

namespace amxqa::cli {

const char* const kWorkerOptionNames[kWorkerOptionCount] = {"model", "isa", "max-passage-tokens", "threshold", "threshold-file", "threads"};

const char kWorkerOptionsHelp[] =
    "  --model M               model file (default: $AMXQA_MODEL, then the bundled default.amxqa)\n"
    "  --threads N             worker threads, one session each, all made at start (default 1)\n"
    AMXQA_CLI_THRESHOLD_HELP
    "  --max-passage-tokens T  tokens a context may have (default 4096)\n"
    "  --isa ISA               auto (default), scalar, avx2, avx512, amx, amx-emulated\n"
    "  --split-words           let a span start or end inside a word (default: whole words)\n";

namespace {
// More sessions than this is a typo, not a machine: each holds a workspace.
constexpr unsigned long long kMaxThreads = 256;
}  // namespace

bool parse_worker_options(const char* cmd, const Args& args, amxqa_session_options* options, size_t* threads) {
  if (!session_options(cmd, args, options)) return false;
  bool ok = true;
  const unsigned long long n = args.get_uint("threads", 1, &ok);
  if (!ok || n == 0 || n > kMaxThreads) {
    usage_error(cmd, "--threads must be between 1 and " + std::to_string(kMaxThreads));
    return false;
  }
  *threads = static_cast<size_t>(n);
  return true;
}

bool open_workers(const char* cmd, const Args& args, const amxqa_session_options& options, size_t threads,
                  amxqa::Model* model, amxqa::serve::SessionPool* pool) {
  if (!open_model(cmd, args, model)) return false;
  std::string error;
  if (!pool->open(*model, options, threads, &error)) {
    fail(cmd, error);
    return false;
  }
  return true;
}

}  // namespace amxqa::cli
