// cmd_answer.cpp — `amxqa answer`: one question about one passage.
#include <cstdio>
#include <optional>
#include <string>

#include "answer_json.h"
#include "cli_common.h"
#include "commands.h"

namespace amxqa::cli {

namespace {

const char kHelp[] =
    "usage: amxqa answer [--model M] --question Q (--passage TEXT | --passage-file F) [--json]\n"
    "                    [--threshold T | --threshold-file F] [--isa ISA] [--max-passage-tokens N]\n"
    "                    [--split-words]\n\n"
    "Prints the answer (the exact passage bytes of its span), or an empty line when\n"
    "the model abstains because the passage does not contain the answer.\n\n"
    "  --model M               model file (default: $AMXQA_MODEL, then the bundled default.amxqa)\n"
    "  --question Q            the question\n"
    "  --passage TEXT          the passage\n"
    "  --passage-file F        the passage from a file; '-' reads it from stdin\n"
    "  --json                  print every field of amxqa_answer_info as one JSON object\n"
    "  --isa ISA               auto (default), scalar, avx2, avx512, amx, amx-emulated\n"
    "  --max-passage-tokens N  session capacity (default 4096)\n"
    AMXQA_CLI_THRESHOLD_HELP
    "  --split-words           let a span start or end inside a word (default: whole words)\n";

}  // namespace

int cmd_answer(int argc, char** argv, int first) {
  const char* cmd = "answer";
  App app("amxqa answer");
  SessionArgs session_args;
  add_session_options(app, &session_args);
  add_threshold_options(app, &session_args);
  std::optional<std::string> question, passage_text, passage_file;
  bool json = false;
  app.add_option("--question", question)->required();
  CLI::Option* text_opt = app.add_option("--passage", passage_text);
  app.add_option("--passage-file", passage_file)->excludes(text_opt);
  app.add_flag("--json", json);
  if (int rc = parse_args(cmd, app, argc, argv, first, kHelp); rc >= 0) return rc;
  if (!passage_text && !passage_file)
    return usage_error(cmd, "give the passage with --passage TEXT or --passage-file F (one of them)");

  amxqa_session_options options;
  if (!session_options(cmd, session_args, &options)) return kExitUsage;
  std::string passage, error;
  if (passage_text) passage = *passage_text;
  else if (!read_input(*passage_file, &passage, &error)) return fail(cmd, error);

  amxqa::Model model;
  if (!open_model(cmd, session_args, &model)) return kExitFailure;
  amxqa::Session session;
  if (!open_session(cmd, model, options, &session)) return kExitFailure;

  amxqa::Answer a = session.answer(*question, passage);
  if (!a.ok()) return fail(cmd, std::string(a.status.name()) + ": " + a.status.message);
  if (json) {
    std::printf("%s\n", answer_json(a).c_str());
  } else {
    std::fwrite(a.text.data(), 1, a.text.size(), stdout);
    std::fputc('\n', stdout);
  }
  return std::fflush(stdout) == 0 ? kExitOk : kExitFailure;
}

}  // namespace amxqa::cli
