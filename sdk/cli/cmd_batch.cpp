// cmd_batch.cpp — `amxqa batch`: JSONL questions in, JSONL answers out
// (sdk/server/batch_runner.h), with a progress bar on stderr.
#include <cstdio>
#include <memory>
#include <string>

#include "batch_runner.h"
#include "commands.h"
#include "progress_bar.h"
#include "worker_options.h"

namespace amxqa::cli {

namespace {

const char kHelp[] =
    "usage: amxqa batch [--model M] [--input F] [--out F] [--resume] [--threads N]\n"
    "                   [--threshold X] [--max-passage-tokens T] [--windows] [--window-overlap N]\n"
    "                   [--max-answer-tokens N] [--isa ISA] [--split-words]\n\n"
    "Reads one JSON request per line: \"id\", \"question\", \"context\" and the optional\n"
    "\"top_k\", \"threshold\", \"max_answer_tokens\", \"windows\", \"window_overlap\",\n"
    "\"whole_words\" (README \"Request fields\"; any other field is an error), and writes one\n"
    "line per input line, in input order, the JSON `amxqa serve` answers with and the id:\n"
    "  {\"id\", \"answer\", \"score\", \"start\", \"end\", \"byte_start\", \"byte_end\", \"no_answer\",\n"
    "   \"candidates\"}   (start/end: characters of the context; byte_start/byte_end: bytes)\n"
    "or, for a line that cannot be answered (bad JSON, a missing or unknown field, a context\n"
    "over --max-passage-tokens without windows), {\"id\", \"error\": {\"code\", \"message\", \"line\"}}\n"
    "(id null when the line has none). Blank lines are skipped. Exit 0 once every line has\n"
    "its output line.\n\n"
    "  --input F               JSONL questions (default '-': stdin)\n"
    "  --out F                 JSONL answers (default '-': stdout)\n"
    "  --resume                append to --out, skipping the lines it already holds (by id,\n"
    "                          counted: a repeated id is answered again; id-less error lines by\n"
    "                          line number); an incomplete last line is cut off and redone\n";

}  // namespace

int cmd_batch(int argc, char** argv, int first) {
  const char* cmd = "batch";
  App app("amxqa batch");
  WorkerArgs workers;
  add_worker_options(app, &workers);
  std::string input_path = "-", out_path = "-";
  bool resume = false;
  app.add_option("--input", input_path);
  app.add_option("--out", out_path);
  app.add_flag("--resume", resume);
  if (int rc = parse_args(cmd, app, argc, argv, first, std::string(kHelp) + kWorkerOptionsHelp); rc >= 0) return rc;
  if (resume && out_path == "-") return usage_error(cmd, "--resume needs --out FILE");

  amxqa_session_options options;
  if (!session_options(cmd, workers.session, &options)) return kExitUsage;
  std::string input, error;
  if (!read_input(input_path, &input, &error)) return fail(cmd, error);
  amxqa::serve::DoneSet done;
  if (resume && !amxqa::serve::load_done_set(out_path, &done, &error)) return fail(cmd, error);
  amxqa::Model model;
  amxqa::serve::SessionPool pool;
  if (!open_workers(cmd, workers, options, &model, &pool)) return kExitFailure;

  std::FILE* out = out_path == "-" ? stdout : std::fopen(out_path.c_str(), resume ? "ab" : "wb");
  if (!out) return fail(cmd, "cannot write '" + out_path + "'");
  std::unique_ptr<ProgressBar> bar;
  auto on_progress = [&bar](size_t n, size_t total, const amxqa::serve::BatchStats& s) {
    if (!bar) bar = std::make_unique<ProgressBar>(total);
    bar->update(n, s.errors ? std::to_string(s.errors) + " errors" : "");
  };
  amxqa::serve::BatchStats stats;
  const bool written = amxqa::serve::run_batch(pool, input, done, out, on_progress, &stats, &error);
  if (bar) bar->finish();
  if (out != stdout && std::fclose(out) != 0 && written) return fail(cmd, "error closing '" + out_path + "'");
  if (!written) return fail(cmd, error);
  std::fprintf(stderr, "amxqa batch: %zu answered, %zu error lines, %zu skipped (already in %s)\n",
               stats.answered, stats.errors, stats.skipped, out_path.c_str());
  return kExitOk;
}

}  // namespace amxqa::cli
