// `amxqa-train finetune`: the options of finetune/finetune_run.h.
#include <cstdio>

#include "cli/commands.h"
#include "finetune/finetune_run.h"
#include "stages/train_loop.h"

namespace amxqa::train {
namespace {

const char kHelp[] =
    "usage: amxqa-train finetune --model M.amxqa --data FILE.json[.gz] --out NEW.amxqa [options]\n"
    "\n"
    "Continues a released model (its weights and tokenizer; f32, bf16 or int8) on your own SQuAD v1.1 or\n"
    "v2.0 file: answerable questions teach the answer span, questions marked \"is_impossible\": true\n"
    "teach abstaining on their paragraph. Part of the data is held out (or --dev FILE): EM / F1, the\n"
    "has-answer / no-answer split, over-refusal and the no-answer margin's ROC AUC are printed on it\n"
    "before and after, measured through the public C API. When the held-out part has unanswerable\n"
    "questions the no-answer threshold is chosen again on it (as `amxqa calibrate` does); otherwise the\n"
    "input's threshold is kept. Writes NEW.amxqa (the input's weight type unless --dtype) and\n"
    "NEW.MODEL_CARD.md (data, steps, tokens, wall time, CPU, threads, before/after, generations).\n"
    "The data is refused, before any training, if it cannot be read or parsed, holds an answer whose text\n"
    "is not at its answer_start, or no usable question; so is a model without a start pointer.\n"
    "\n"
    "  --model M           the model to continue (e.g. sdk/models/default.amxqa)\n"
    "  --data FILE         SQuAD v1.1 / v2.0 JSON, optionally gzip'd\n"
    "  --out NEW           the model written (its card beside it)\n"
    "  --dev FILE          hold out this SQuAD file instead of part of --data (all of --data is trained on)\n"
    "  --holdout F         share of --data's paragraphs held out, evenly spaced (default 0.15; at least one)\n"
    "  --epochs E          passes over the training examples (default 2), when --steps is not given\n"
    "  --steps N           optimizer steps (default: from --epochs and the data's size)\n"
    "  --lr LR             peak AdamW learning rate (default 1e-4; linear warm-up over a tenth of the\n"
    "                      steps, then cosine decay to a tenth)\n"
    "  --batch-tokens N    tokens per step, whole questions (default 4096)\n"
    "  --threads N         training threads (default 1); every N trains the same weights, bit for bit\n"
    "  --seed S            order of the examples and the made-up unanswerable draw (default 1)\n"
    "  --dtype T           f32, bf16, i8 or i7 (default: the input's)\n"
    "  --max-over-refusal PCT  the re-chosen threshold abstains on at most PCT% of the held-out answerable\n"
    "                      questions (default 15, as `amxqa calibrate`)\n"
    "  --made-up F         share of answerable training questions replaced by a made-up unanswerable one\n"
    "                      (its answer removed, another paragraph, ...) so abstention is not forgotten on\n"
    "                      data without unanswerable questions (default 0.1; 0: none)\n"
    "  --max-tokens N      questions whose prompt and answer exceed N tokens are skipped (default 1024)\n"
    "  --work DIR          work folder (default NEW.amxqa.work; emptied and removed at the end)\n"
    "  --keep-work         keep the work folder (checkpoints, metrics.jsonl for `amxqa-train plot`)\n"
    "\n"
    "Exit status: 0 written; 1 refused or failed (the message says why); 2 usage error; 130 interrupted\n"
    "(nothing written).\n";

}  // namespace

int cmd_finetune(int argc, char** argv) {
  command_line::App app("amxqa-train finetune");
  FinetuneOptions o;
  std::vector<std::string> extra;  // any positional is a usage error, answered with the help
  app.add_option("--model", o.model);
  app.add_option("--data", o.data);
  app.add_option("--out", o.out);
  app.add_option("--dev", o.dev);
  app.add_option("--holdout", o.holdout)->check(CLI::Range(0.001, 0.9));
  app.add_option("--epochs", o.epochs)->check(CLI::Range(0.01, 1000.0));
  app.add_unsigned("--steps", o.steps);
  app.add_option("--lr", o.lr)->check(CLI::Range(1e-9, 1.0));
  app.add_unsigned("--batch-tokens", o.batch_tokens)->check(CLI::Range(uint64_t(16), uint64_t(1) << 24));
  app.add_unsigned("--threads", o.threads)->check(CLI::Range(1u, 256u));
  app.add_unsigned("--seed", o.seed);
  app.add_option("--dtype", o.dtype)->check(CLI::IsMember({"f32", "bf16", "i8", "i7"}));
  app.add_option("--max-over-refusal", o.max_over_refusal)->check(CLI::Range(0.0, 100.0));
  app.add_option("--made-up", o.made_up)->check(CLI::Range(0.0, 1.0));
  app.add_unsigned("--max-tokens", o.max_tokens)->check(CLI::Range(16u, 65536u));
  app.add_option("--work", o.work);
  app.add_flag("--keep-work", o.keep_work);
  app.add_option("ARGS", extra);
  if (parse_command(app, argc, argv)) {
    std::fputs(kHelp, stdout);
    return 0;
  }
  if (o.model.empty() || o.data.empty() || o.out.empty() || !extra.empty()) {
    std::fprintf(stderr, "amxqa-train finetune: --model, --data and --out are required\n\n%s", kHelp);
    return 2;
  }
  try {
    run_finetune(o);
  } catch (const Interrupted&) {
    std::fprintf(stderr, "amxqa-train finetune: interrupted; nothing written\n");
    return 130;
  }
  return 0;
}

}  // namespace amxqa::train
