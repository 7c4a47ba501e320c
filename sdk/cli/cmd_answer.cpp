// cmd_answer.cpp — `amxqa answer`: one question about one passage.
#include <cstdio>
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
  ArgSpec spec{{"model", "question", "passage", "passage-file", "isa", "max-passage-tokens", "threshold",
                "threshold-file"},
               {"json", "split-words"}, 0, 0};
  Args args(spec, argc, argv, first);
  if (int rc = check_args(cmd, args, kHelp); rc >= 0) return rc;
  if (!args.has("question")) return usage_error(cmd, "--question is required");
  if (args.has("passage") == args.has("passage-file"))
    return usage_error(cmd, "give the passage with --passage TEXT or --passage-file F (one of them)");

  amxqa_session_options options;
  if (!session_options(cmd, args, &options)) return kExitUsage;
  std::string passage, error;
  if (args.has("passage")) passage = args.get("passage");
  else if (!read_input(args.get("passage-file"), &passage, &error)) return fail(cmd, error);

  amxqa::Model model;
  if (!open_model(cmd, args, &model)) return kExitFailure;
  amxqa::Session session;
  if (!open_session(cmd, model, options, &session)) return kExitFailure;

  amxqa::Answer a = session.answer(args.get("question"), passage);
  if (!a.ok()) return fail(cmd, std::string(a.status.name()) + ": " + a.status.message);
  if (args.flag("json")) {
    std::printf("%s\n", answer_json(a).c_str());
  } else {
    std::fwrite(a.text.data(), 1, a.text.size(), stdout);
    std::fputc('\n', stdout);
  }
  return std::fflush(stdout) == 0 ? kExitOk : kExitFailure;
}

}  // namespace amxqa::cli
