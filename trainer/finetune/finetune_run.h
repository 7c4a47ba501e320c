// finetune_run.h — `amxqa-train finetune`: continues a released model on a
// user's SQuAD v1.1 / v2.0 file with no recipe. The recipe is made in memory
// from the model's own [arch] (init.model machinery, stages/import_model.h:
// its tokenizer and weights, int8 dequantised), the data goes through the QA
// SFT set builders (answerable questions as span targets, SQuAD 2.0
// unanswerable ones as ABSTAIN on their own paragraphs) and the trainer's one
// loop (train_sft_set: progress line, --threads with the same bits). Held-out
// figures before and after come through the public API (finetune_eval.h);
// the no-answer threshold is re-chosen on the held-out part when it has
// unanswerable questions. Writes the model and a card next to it.
#pragma once
#include <cstdint>
#include <string>

namespace amxqa::train {

struct FinetuneOptions {
  std::string model, data, out;
  std::string dev;                 // held-out file; "" = hold out part of data
  double holdout = 0.15;           // share of paragraphs held out (without dev)
  uint64_t steps = 0;              // 0: from epochs
  double epochs = 2.0;
  double lr = 1e-4;
  uint64_t batch_tokens = 4096;
  uint32_t threads = 1;
  uint64_t seed = 1;
  std::string dtype;               // "" = the input's (f32, bf16, i8, i7)
  double max_over_refusal = 15.0;  // the threshold sweep's cap, as `amxqa calibrate`
  double made_up = 0.1;            // share of answerable examples replaced by made-up unanswerable ones
  uint32_t max_tokens = 1024;      // longer prompts are skipped
  std::string work;                // work folder; "" = OUT.work, removed at the end
  bool keep_work = false;
};

// Runs it; prints progress on stderr and the figures on stdout. Throws
// std::runtime_error with a message naming the bad input, before any
// training, on a missing or invalid model, a model without a start pointer,
// bad data or an unwritable output.
void run_finetune(const FinetuneOptions& o);

}  // namespace amxqa::train
