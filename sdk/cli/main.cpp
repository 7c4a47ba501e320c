// main.cpp — `amxqa <command> ...`: dispatch to the subcommands.
#include <cstdio>
#include <cstring>
#include <exception>

#include "amxqa.h"
#include "commands.h"

namespace {

struct Command {
  const char* name;
  const char* summary;
  int (*run)(int, char**, int);
};

const Command kCommands[] = {
    {"answer", "answer one question about a passage", amxqa::cli::cmd_answer},
    {"shell", "load a passage, then answer one question per input line", amxqa::cli::cmd_shell},
    {"squad", "score a model on a SQuAD file (EM/F1) and write predictions", amxqa::cli::cmd_squad},
    {"calibrate", "choose the no-answer threshold on a labelled SQuAD 2.0 file", amxqa::cli::cmd_calibrate},
    {"inspect", "architecture, sizes, vocabulary mask, provenance and scores of a model", amxqa::cli::cmd_inspect},
    {"verify", "run every validation check on a model file", amxqa::cli::cmd_verify},
    {"cpu", "CPU features, the backend that will run, and why", amxqa::cli::cmd_cpu},
    {"serve", "HTTP server: POST /v1/answer, GET /health, GET /v1/model", amxqa::cli::cmd_serve},
    {"batch", "answer a JSONL file of questions, one JSONL line out per line in", amxqa::cli::cmd_batch},
};

void usage(FILE* to) {
  std::fprintf(to,
               "amxqa %s: extractive question answering on one CPU core\n\n"
               "usage: amxqa <command> [options]    (amxqa <command> --help for its options)\n\n",
               amxqa_version());
  for (const Command& c : kCommands) std::fprintf(to, "  %-10s %s\n", c.name, c.summary);
  std::fprintf(to,
               "\nThe model defaults to $AMXQA_MODEL, then the bundled default.amxqa.\n"
               "Exit status: 0 success, 1 failure, 2 usage error.\n");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    usage(stderr);
    return 2;
  }
  const char* name = argv[1];
  if (!std::strcmp(name, "--help") || !std::strcmp(name, "-h") || !std::strcmp(name, "help")) {
    usage(stdout);
    return 0;
  }
  if (!std::strcmp(name, "--version")) {
    std::printf("amxqa %s (model format %d)\n", amxqa_version(), AMXQA_FORMAT_VERSION);
    return 0;
  }
  for (const Command& c : kCommands) {
    if (std::strcmp(name, c.name) != 0) continue;
    try {
      return c.run(argc, argv, 2);
    } catch (const std::exception& e) {  // e.g. out of memory: still one line, never an abort
      std::fprintf(stderr, "amxqa %s: %s\n", c.name, e.what());
      return 1;
    }
  }
  std::fprintf(stderr, "amxqa: unknown command '%s' (try 'amxqa --help')\n", name);
  return 2;
}
