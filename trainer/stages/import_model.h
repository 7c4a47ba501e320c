// import_model.h — recipe key `init.model = PATH`: a run continues from a
// released .amxqa model instead of training from scratch. The model's
// tokenizer becomes tokenizer.tok and its weights (f32, bf16 or int8 in any
// layout, widened to f32 with fresh AdamW moments) become pretrain.ckpt and
// sft_stop.ckpt, so `run` skips tokenizer, pretraining and round 1 and starts
// at QA SFT; with `init.after = pretrain` (a base model, such as v4-base's)
// only pretrain.ckpt, so round 1 runs too. The recipe's [arch] must match the
// model's, except for the flags that add no parameter or a tensor that starts
// at zero: question_match, start_pointer, no_answer_head and passage_reader
// may be added, never dropped; end_pointer and question_reread may differ.
// token_seen is 1 for every id the model's vocabulary mask allows, so
// vocab-fix keeps that mask.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "stages/run_context.h"

namespace amxqa::train {

// No-op without init.model or when its outputs exist; throws
// std::runtime_error on an unreadable model, an arch mismatch or an unknown
// init.after.
void import_init_model(RunContext& ctx);

// Sets the recipe's [arch] keys to the model file's architecture, so a recipe
// made in memory (`amxqa-train finetune`) matches it; throws on a file that
// amxqa_model_verify rejects.
void set_recipe_arch(Recipe& recipe, const std::string& path);

// The file's bytes, checked by the runtime's own validator (every check
// amxqa_model_open makes); throws std::runtime_error naming the first failure.
std::vector<uint8_t> read_verified_model(const std::string& path);

}  // namespace amxqa::train
