// finetune_card.h — the short Markdown card `amxqa-train finetune` writes
// next to its output (new.amxqa -> new.MODEL_CARD.md): what it started from,
// the data and its split, the training (steps, tokens, wall time, CPU,
// threads), the held-out figures before and after, the threshold decision and
// a few generations.
#pragma once
#include <string>
#include <vector>

#include "finetune/finetune_data.h"
#include "finetune/finetune_eval.h"

namespace amxqa::train {

struct FinetuneSample {
  std::string question, gold, before, after;  // gold "(no answer)" for an unanswerable question
};

struct FinetuneCard {
  std::string model_in, model_out, data, data_digest, split, dtype, cpu;
  QuestionCounts train, held_out;
  size_t examples = 0, abstain_examples = 0, real_unanswerable = 0, skipped = 0;
  unsigned long long steps = 0, tokens = 0, batch_tokens = 0;
  double epochs = 0, lr = 0, train_seconds = 0, total_seconds = 0, tok_per_s = 0;
  unsigned threads = 1;
  HeldOutScore before, after, after_old_threshold, before_recalibrated;
  bool recalibrated = false;
  std::string threshold_note;  // how the output's threshold was chosen
  std::vector<FinetuneSample> samples;
};

// "new.amxqa" -> "new.MODEL_CARD.md" (any other name: NAME.MODEL_CARD.md).
std::string finetune_card_path(const std::string& model_out);
std::string finetune_card_markdown(const FinetuneCard& c);

}  // namespace amxqa::train
