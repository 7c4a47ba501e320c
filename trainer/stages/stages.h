// stages.h — the stage runners of `amxqa-train`, in pipeline order. Each one
// returns immediately when its output already exists in the run folder (so
// `run` skips finished stages) and throws std::runtime_error on failure.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "stages/run_context.h"
#include "stages/sft_data.h"

namespace amxqa::train {

// Names in order, as used by `run` and the per-stage subcommands.
const char* const kStageNames[] = {"tokenizer", "pretrain", "sft_stop", "sft_qa", "sft_abstain",
                                   "vocab_fix", "export", "calibrate", "eval"};

void stage_tokenizer(RunContext& ctx);    // → tokenizer.tok
void stage_pretrain(RunContext& ctx);     // → pretrain.ckpt, round 0 evaluation
void stage_sft_stop(RunContext& ctx);     // round 1 → sft_stop.ckpt
void stage_sft_qa(RunContext& ctx);       // round 2 → sft_qa.ckpt
void stage_sft_abstain(RunContext& ctx);  // round 3 → sft_abstain.ckpt
void stage_vocab_fix(RunContext& ctx);    // round 4 → vocab_mask.bin
void stage_export(RunContext& ctx);       // → <outputs.model>
void stage_calibrate(RunContext& ctx);    // → calibration.json, threshold in the model (calibration.data)
void stage_eval(RunContext& ctx);         // → eval.json, scores in the model, MODEL_CARD.md

// The last trained checkpoint exported to `path` with these provenance scores
// (and the run's calibration.json, if there is one).
void write_final_model(RunContext& ctx, const std::string& path,
                       const std::vector<std::pair<std::string, float>>& scores);

// The SFT rounds' training: `set` trained as stage `stage` (its loop,
// checkpoints, resume and progress line), starting from the run folder's
// `prev`.ckpt with fresh AdamW moments, on cfg's schedule; writes
// `stage`.ckpt and leaves the result in model/state. Shared by sft_stop,
// sft_qa, sft_abstain and `amxqa-train finetune`. Throws Interrupted on SIGINT.
LoopResult train_sft_set(RunContext& ctx, const std::string& stage, const std::string& prev, const StageConfig& cfg,
                         int round, const SftSet& set, const RunTokenizer& tok, TrainModel& model, TrainState& state);

// Runs the named stage ("sft-qa" and "sft_qa" both work); false if unknown.
bool run_stage(RunContext& ctx, const std::string& name);

// The output file whose existence marks the stage as done.
std::string stage_output(const RunContext& ctx, const std::string& stage);

}  // namespace amxqa::train
