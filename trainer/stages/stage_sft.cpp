// The three post-training rounds (sft_stop, sft_qa, sft_abstain): take the
// round's set (stages/round_sets.h; under `run` built ahead, see
// stages/sft_prefetch.h), continue from the previous stage's checkpoint, then
// export and score the round through the C API.
#include <cstdio>
#include <optional>

#include "stages/export_model.h"
#include "stages/round_sets.h"
#include "stages/rounds.h"
#include "stages/sft_data.h"
#include "stages/sft_prefetch.h"
#include "stages/stages.h"

namespace amxqa::train {
namespace {

void run_sft(RunContext& ctx, const std::string& stage, const std::string& prev, const StageConfig& cfg, int round) {
  const std::string final_ckpt = ctx.out(stage_checkpoint(stage));
  if (file_exists(final_ckpt)) {
    std::fprintf(stderr, "[%s] %s exists: skipped\n", stage.c_str(), final_ckpt.c_str());
    return;
  }
  const RunConfig& c = ctx.cfg;
  RunTokenizer tok = load_run_tokenizer(ctx);
  const size_t max_tokens = static_cast<size_t>(ctx.recipe.integer(stage + ".max_tokens", c.seq_len));
  Progress clock(stage, 1, 0);
  // Under `run` the set was built while the earlier stages trained (waits
  // if it is not ready yet); a round run on its own builds it here.
  double built_s = 0;
  std::optional<SftSet> ahead = ctx.prefetch ? ctx.prefetch->take(stage, &built_s) : std::nullopt;
  SquadTrainFile squad;
  const SftSet set = ahead ? std::move(*ahead) : build_round_set(ctx, stage, tok.owned.view, squad);
  check_round_set(ctx, stage, set);
  const std::string ready = ahead ? "built ahead in " + format_duration(built_s) + ", waited " : "built in ";
  std::fprintf(stderr, "[%s] %zu training examples (%zu abstention), %zu validation, %zu skipped (unmappable or > %zu tokens), %s%s\n",
               stage.c_str(), set.train.size(), set.unanswerable, set.val.size(), set.skipped, max_tokens,
               ready.c_str(), format_duration(clock.elapsed()).c_str());
  ctx.log->write({{"stage", stage},
                  {"examples", set.train.size()},
                  {"unanswerable", set.unanswerable},
                  {"val_examples", set.val.size()},
                  {"skipped", set.skipped}});
  TrainModel model(c.arch, c.seed);
  TrainState state;
  const LoopResult r = train_sft_set(ctx, stage, prev, cfg, round, set, tok, model, state);
  std::fprintf(stderr, "[%s] done: %llu steps, val_loss %.4f\n", stage.c_str(),
               static_cast<unsigned long long>(r.steps), r.val_loss);
  static const char* kRoundNames[] = {"pretrained", "instruction SFT", "QA SFT", "abstention rebalance"};
  evaluate_round(ctx, round, kRoundNames[round], model, state, tok.data, open_vocab_mask(c.arch.vocab_size));
}

}  // namespace

LoopResult train_sft_set(RunContext& ctx, const std::string& stage, const std::string& prev, const StageConfig& cfg,
                         int round, const SftSet& set, const RunTokenizer& tok, TrainModel& model, TrainState& state) {
  std::unique_ptr<Corpus> replay;
  if (cfg.replay_frac > 0) replay = load_corpus(ctx, tok);
  LoopSpec spec;
  spec.cfg = &cfg;
  spec.partial_ckpt = ctx.out(stage + ".partial.ckpt");
  spec.final_ckpt = ctx.out(stage_checkpoint(stage));
  begin_stage(ctx, stage, spec.partial_ckpt, ctx.out(stage_checkpoint(prev)), model, state);
  spec.val = &set.val;
  spec.tok = &tok.owned.view;
  ExampleSource source(set.train, ctx.cfg.seed + static_cast<uint64_t>(round), replay.get(), cfg.replay_frac);
  LoopResult r = train_loop(ctx, stage, model, state, source, spec);
  if (r.interrupted) throw Interrupted(stage);
  return r;
}

void stage_sft_stop(RunContext& ctx) { run_sft(ctx, "sft_stop", "pretrain", ctx.cfg.sft_stop, 1); }
void stage_sft_qa(RunContext& ctx) { run_sft(ctx, "sft_qa", "sft_stop", ctx.cfg.sft_qa, 2); }
void stage_sft_abstain(RunContext& ctx) { run_sft(ctx, "sft_abstain", "sft_qa", ctx.cfg.sft_abstain, 3); }

}  // namespace amxqa::train
