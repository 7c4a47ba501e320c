// cmd_shell.cpp — `amxqa shell`: one passage, then a question per input line.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <iostream>
#include <string>

#include "answer_json.h"
#include "cli_common.h"
#include "commands.h"

namespace amxqa::cli {

namespace {
const char kHelp[] =
    "usage: amxqa shell [--model M] --passage-file F [--json] [--threshold T | --threshold-file F]\n"
    "                   [--isa ISA] [--max-passage-tokens N] [--windows] [--window-overlap N]\n"
    "                   [--max-answer-tokens N] [--split-words]\n\n"
    "Loads the passage, then reads one question per line from stdin and prints\n"
    "  <answer>\t<latency> ms\n"
    "(latency: wall clock of the whole call: tokenising, prefill and decoding)\n"
    "per question ('(no answer)' when the model abstains), or with --json one JSON\n"
    "object per line as `amxqa answer --json` prints it. Empty lines are skipped;\n"
    "end with Ctrl-D. Errors for one question are printed and the shell goes on.\n\n"
    AMXQA_CLI_THRESHOLD_HELP
    AMXQA_CLI_SESSION_HELP;
}  // namespace

int cmd_shell(int argc, char** argv, int first) {
  const char* cmd = "shell";
  App app("amxqa shell");
  SessionArgs session_args;
  add_session_options(app, &session_args);
  add_threshold_options(app, &session_args);
  std::string passage_file;
  bool json = false;
  app.add_option("--passage-file", passage_file)->required();
  app.add_flag("--json", json);
  if (int rc = parse_args(cmd, app, argc, argv, first, kHelp); rc >= 0) return rc;
  if (passage_file == "-") return usage_error(cmd, "stdin holds the questions; pass the passage as a file");

  amxqa_session_options options;
  if (!session_options(cmd, session_args, &options)) return kExitUsage;
  std::string passage, error;
  if (!read_input(passage_file, &passage, &error)) return fail(cmd, error);
  amxqa::Model model;
  if (!open_model(cmd, session_args, &model)) return kExitFailure;
  amxqa::Session session;
  if (!open_session(cmd, model, options, &session)) return kExitFailure;

  const bool interactive = isatty(STDIN_FILENO);
  if (interactive)
    std::fprintf(stderr, "passage: %zu bytes; backend %s. One question per line, Ctrl-D to end.\n",
                 passage.size(), amxqa_isa_name(session.isa()));
  amxqa::Answer a;  // reused: no allocation per question once its text capacity is reached
  std::string line;
  for (;;) {
    if (interactive) std::fputs("? ", stderr);
    if (!std::getline(std::cin, line)) break;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.find_first_not_of(" \t") == std::string::npos) continue;
    auto t0 = std::chrono::steady_clock::now();
    amxqa_status st = session.answer(line, passage, &a);
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    if (st != AMXQA_OK) {
      std::fprintf(stderr, "amxqa shell: %s\n", answer_error(a.status, options).c_str());
      continue;
    }
    if (json) std::printf("%s\n", answer_json(a, passage).c_str());
    else std::printf("%s\t%.2f ms\n", a.abstained ? "(no answer)" : a.text.c_str(), ms);
    std::fflush(stdout);
  }
  if (interactive) std::fputc('\n', stderr);
  return kExitOk;
}

}  // namespace amxqa::cli
