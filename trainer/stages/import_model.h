// import_model.h — recipe key `init.model = PATH`: a run continues from a
// released .amxqa model instead of training from scratch. The model's
// tokenizer becomes tokenizer.tok and its weights (bf16 or f32, plain layout,
// widened to f32 with fresh AdamW moments) become pretrain.ckpt and
// sft_stop.ckpt, so `run` skips tokenizer, pretraining and round 1 and starts
// at QA SFT. The recipe's [arch] must match the model's; token_seen is 1 for
// every id the model's vocabulary mask allows, so vocab-fix keeps that mask.
#pragma once

#include "stages/run_context.h"

namespace amxqa::train {

// No-op without init.model or when the three outputs exist; throws
// std::runtime_error on an unreadable model or an arch mismatch.
void import_init_model(RunContext& ctx);

}  // namespace amxqa::train
