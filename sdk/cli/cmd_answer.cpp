// cmd_answer.cpp — `amxqa answer`: one question about one passage.
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "answer_json.h"
#include "cli_common.h"
#include "commands.h"
#include "qa_request.h"  // kMaxTopK: the same cap on every surface

namespace amxqa::cli {

namespace {

const char kHelp[] =
    "usage: amxqa answer [--model M] --question Q (--passage TEXT | --passage-file F) [--json]\n"
    "                    [--top-k K] [--threshold T | --threshold-file F] [--isa ISA]\n"
    "                    [--max-passage-tokens N] [--windows] [--window-overlap N]\n"
    "                    [--max-answer-tokens N] [--split-words]\n\n"
    "Prints the answer (the exact passage bytes of its span), or an empty line when\n"
    "the model abstains because the passage does not contain the answer. The options\n"
    "are the request fields every surface shares (README \"Request fields\").\n\n"
    "  --model M               model file (default: $AMXQA_MODEL, then the bundled default.amxqa)\n"
    "  --question Q            the question\n"
    "  --passage TEXT          the passage (the request's context)\n"
    "  --passage-file F        the passage from a file; '-' reads it from stdin\n"
    "  --top-k K               up to K candidate spans, best first, one a line (1..100; default 1)\n"
    "  --json                  one JSON object: answer, score, start/end (characters),\n"
    "                          byte_start/byte_end, no_answer, candidates, then every\n"
    "                          amxqa_answer_info field\n"
    AMXQA_CLI_THRESHOLD_HELP
    AMXQA_CLI_SESSION_HELP;

}  // namespace

int cmd_answer(int argc, char** argv, int first) {
  const char* cmd = "answer";
  App app("amxqa answer");
  SessionArgs session_args;
  add_session_options(app, &session_args);
  add_threshold_options(app, &session_args);
  std::optional<std::string> question, passage_text, passage_file;
  bool json = false;
  uint32_t top_k = 1;
  app.add_option("--question", question)->required();
  CLI::Option* text_opt = app.add_option("--passage", passage_text);
  app.add_option("--passage-file", passage_file)->excludes(text_opt);
  app.add_option("--top-k", top_k)->check(CLI::Range(uint32_t{1}, serve::kMaxTopK));
  app.add_flag("--json", json);
  if (int rc = parse_args(cmd, app, argc, argv, first, kHelp); rc >= 0) return rc;
  if (!passage_text && !passage_file)
    return usage_error(cmd, "give the passage with --passage TEXT or --passage-file F (one of them)");

  amxqa_session_options options;
  if (!session_options(cmd, session_args, &options)) return kExitUsage;
  options.max_top_k = static_cast<uint8_t>(top_k);  // sized for the asked top-k, never silently capped
  std::string passage, error;
  if (passage_text) passage = *passage_text;
  else if (!read_input(*passage_file, &passage, &error)) return fail(cmd, error);

  amxqa::Model model;
  if (!open_model(cmd, session_args, &model)) return kExitFailure;
  amxqa::Session session;
  if (!open_session(cmd, model, options, &session)) return kExitFailure;

  amxqa::Answer a;
  std::vector<amxqa::Candidate> candidates;
  if (top_k > 1) session.answer_topk(*question, passage, top_k, &candidates, &a);
  else session.answer(*question, passage, &a);
  if (!a.ok()) return fail(cmd, answer_error(a.status, options));
  if (json) {
    std::printf("%s\n", answer_json(a, passage, candidates).c_str());
  } else if (candidates.size() > 1) {
    for (const amxqa::Candidate& c : candidates) {
      std::fwrite(c.text.data(), 1, c.text.size(), stdout);
      std::fputc('\n', stdout);
    }
  } else {
    std::fwrite(a.text.data(), 1, a.text.size(), stdout);
    std::fputc('\n', stdout);
  }
  return std::fflush(stdout) == 0 ? kExitOk : kExitFailure;
}

}  // namespace amxqa::cli
