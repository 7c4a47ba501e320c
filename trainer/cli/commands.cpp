#include "cli/commands.h"

#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>

#include "amxqa.h"
#include "stages/import_model.h"
#include "stages/sft_prefetch.h"
#include "stages/stages.h"
#include "stages/train_loop.h"

namespace amxqa::train {
namespace {

const char kUsage[] =
    "amxqa-train — trains, exports and evaluates amxqa models (see trainer/recipes/*.recipe)\n"
    "\n"
    "usage: amxqa-train COMMAND [options]   (every command takes --help)\n"
    "\n"
    "pipeline (each writes into the recipe's outputs.dir, default trainer/runs/NAME):\n"
    "  run RECIPE [--resume] [--out DIR]   all stages in order; a stage whose output exists is skipped\n"
    "  tokenizer RECIPE                    byte-level BPE            -> tokenizer.tok\n"
    "  pretrain RECIPE                     language-model pretraining -> pretrain.ckpt  (round 0)\n"
    "  sft-stop RECIPE                     round 1: instruction SFT teaching EOT -> sft_stop.ckpt\n"
    "  sft-qa RECIPE                       round 2: SQuAD QA SFT     -> sft_qa.ckpt\n"
    "  sft-abstain RECIPE                  round 3: abstention mix   -> sft_abstain.ckpt\n"
    "  vocab-fix RECIPE                    round 4: ban never-trained ids -> vocab_mask.bin\n"
    "  export RECIPE                       -> the .amxqa model file\n"
    "  calibrate RECIPE                    -> calibration.json: the no-answer threshold, into the model\n"
    "  (eval of a run: `amxqa-train run RECIPE` ends with it; scores + MODEL_CARD.md)\n"
    "\n"
    "adapt a released model:\n"
    "  finetune --model M.amxqa --data my.json[.gz] --out new.amxqa   continue it on your own SQuAD v1.1/v2.0\n"
    "                                      questions; held-out figures before/after, threshold, card\n"
    "\n"
    "tools:\n"
    "  eval --model M.amxqa [--data squad.json.gz] [--limit N]   EM/F1 + probes through the C API\n"
    "  diagnose CKPT|MODEL [--recipe R]    the paper's four failures\n"
    "  restamp MODEL --out NEW             a model exported before 2026-12-07 without its run's folder\n"
    "                                      and wall time (weights, calibration: the same bytes)\n"
    "  plot LOG.jsonl -o out.svg           loss, tok/s and diagnostics as SVG\n";

const char kStageHelp[] =
    "usage: amxqa-train %s RECIPE [--resume] [--out DIR] [--set section.key=value ...]\n"
    "\n"
    "  RECIPE        a recipe file (`key = value` lines under [sections]; see trainer/recipes/)\n"
    "  --resume      continue an interrupted stage from its partial checkpoint\n"
    "  --out DIR     output folder (default: the recipe's outputs.dir or trainer/runs/NAME)\n"
    "  --set K=V     override a recipe value, e.g. --set pretrain.steps=50\n"
    "  --threads N   training threads (default: the recipe's `threads`, else 1); every N trains\n"
    "                the same weights, bit for bit\n"
    "%s";

int stage_command(const std::string& cmd, int argc, char** argv) {
  command_line::App app("amxqa-train " + cmd);
  std::vector<std::string> recipes, sets;
  std::string out;
  bool resume = false;
  unsigned threads = 0;
  app.add_option("RECIPE", recipes);
  app.add_unsigned("--threads", threads)->check(CLI::Range(1u, 256u));
  app.add_option("--out", out);
  app.add_option("--set", sets)->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  app.add_flag("--resume", resume);
  const bool help = parse_command(app, argc, argv);
  const bool all = cmd == "run";
  if (help || recipes.size() != 1) {
    std::fprintf(help ? stdout : stderr, kStageHelp, cmd.c_str(),
                 all ? "\nRuns tokenizer, pretrain, sft-stop, sft-qa, sft-abstain, vocab-fix, export, calibrate and eval in\n"
                       "order; each stage is skipped when its output exists, so a rerun continues the run.\n"
                     : "");
    return help ? 0 : 2;
  }
  auto ctx = make_context(recipes[0], out, resume, sets);
  if (threads) ctx->cfg.threads = threads;
  std::fprintf(stderr, "[%s] recipe %s -> %s\n", cmd.c_str(), ctx->cfg.name.c_str(), ctx->cfg.out_dir.c_str());
  import_init_model(*ctx);  // recipe init.model: continue from a released model
  if (all) {
    for (const char* s : kStageNames) {
      run_stage(*ctx, s);
      // After an interrupted stage's checkpoint a rerun with --resume continues it.
      ctx->resume = resume;
      // With the tokenizer written, one background thread builds the rounds'
      // sets while pretraining trains (stages/sft_prefetch.h).
      if (!std::strcmp(s, "tokenizer")) ctx->prefetch = start_sft_prefetch(*ctx);
    }
    return 0;
  }
  if (!run_stage(*ctx, cmd)) {
    std::fprintf(stderr, "unknown stage %s\n", cmd.c_str());
    return 2;
  }
  return 0;
}

}  // namespace

bool parse_command(command_line::App& app, int argc, char** argv) {
  std::string error;
  const command_line::Parsed parsed = app.parse_args(argc, argv, 2, &error);
  if (parsed == command_line::Parsed::kError) throw std::invalid_argument(error);
  return parsed == command_line::Parsed::kHelp;
}

int run_cli(int argc, char** argv) {
  if (argc < 2 || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h") || !std::strcmp(argv[1], "help")) {
    std::fputs(kUsage, argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  const std::string cmd = argv[1];
  if (cmd == "--version") {  // the trainer ships with, and writes models for, this libamxqa
    std::printf("amxqa-train %s\n", amxqa_version());
    return 0;
  }
  try {
    if (cmd == "eval") return cmd_eval(argc, argv);
    if (cmd == "diagnose") return cmd_diagnose(argc, argv);
    if (cmd == "plot") return cmd_plot(argc, argv);
    if (cmd == "finetune") return cmd_finetune(argc, argv);
    if (cmd == "restamp") return cmd_restamp(argc, argv);
    static const char* kStages[] = {"run", "tokenizer", "pretrain", "sft-stop", "sft-qa", "sft-abstain",
                                    "vocab-fix", "export", "calibrate", "sft_stop", "sft_qa", "sft_abstain", "vocab_fix"};
    for (const char* s : kStages)
      if (cmd == s) return stage_command(cmd, argc, argv);
    std::fprintf(stderr, "amxqa-train: unknown command '%s'\n\n%s", cmd.c_str(), kUsage);
    return 2;
  } catch (const Interrupted& e) {
    std::fprintf(stderr, "amxqa-train: %s (checkpoint written; rerun with --resume)\n", e.what());
    return 130;
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "amxqa-train %s: %s\n", cmd.c_str(), e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "amxqa-train %s: error: %s\n", cmd.c_str(), e.what());
    return 1;
  }
}

}  // namespace amxqa::train
