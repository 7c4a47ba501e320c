// The pretraining stage: packed corpus pieces, full or sampled softmax,
// the budget law printed (and a warning when E exceeds it), round 0 scored.
#include <cstdio>

#include "stages/corpus_data.h"
#include "stages/export_model.h"
#include "stages/rounds.h"
#include "stages/stages.h"

namespace amxqa::train {

namespace {
void print_budget_law(RunContext& ctx) {
  const RunConfig& c = ctx.cfg;
  const double planned = double(c.pretrain.steps) * double(c.pretrain.batch_tokens);
  if (c.arch.moe_experts == 0) {
    std::fprintf(stderr, "[pretrain] dense model: budget law E <= N k / (tau P_e) does not apply (N = %s tokens)\n",
                 eval::format_count(planned).c_str());
    return;
  }
  const double emax = budget_law_max_experts(c.arch, planned, c.tau);
  std::fprintf(stderr, "[pretrain] budget law: E <= N k / (tau P_e) = %s * %u / (%.1f * %llu) = %.1f; recipe E = %u\n",
               eval::format_count(planned).c_str(), c.arch.moe_top_k, c.tau,
               static_cast<unsigned long long>(expert_params(c.arch)), emax, c.arch.moe_experts);
  if (c.arch.moe_experts > emax)
    std::fprintf(stderr, "[pretrain] WARNING: %u experts exceed the budget law (%.1f): expect expert collapse\n",
                 c.arch.moe_experts, emax);
  ctx.log->write(
      {{"stage", "pretrain"}, {"budget_law_max_experts", emax}, {"experts", c.arch.moe_experts}, {"planned_tokens", planned}});
}
}  // namespace

void stage_pretrain(RunContext& ctx) {
  const std::string final_ckpt = ctx.out(stage_checkpoint("pretrain"));
  if (file_exists(final_ckpt)) {
    std::fprintf(stderr, "[pretrain] %s exists: skipped\n", final_ckpt.c_str());
    return;
  }
  const RunConfig& c = ctx.cfg;
  RunTokenizer tok = load_run_tokenizer(ctx);
  auto corpus = load_corpus(ctx, tok);
  print_budget_law(ctx);

  TrainModel model(c.arch, c.seed);
  TrainState state;
  LoopSpec spec;
  spec.cfg = &c.pretrain;
  spec.partial_ckpt = ctx.out("pretrain.partial.ckpt");
  spec.final_ckpt = final_ckpt;
  begin_stage(ctx, "pretrain", spec.partial_ckpt, "", model, state);
  spec.val = &corpus->val;
  spec.tok = &tok.owned.view;
  spec.sample_prompts = {"The capital of France is", "In 1850, the", "Once upon a time"};
  PieceSource source(*corpus, c.seed);
  LoopResult r = train_loop(ctx, "pretrain", model, state, source, spec);
  if (r.interrupted) throw Interrupted("pretrain");
  std::fprintf(stderr, "[pretrain] done: %llu steps, %s tokens, val_loss %.4f -> %s\n",
               static_cast<unsigned long long>(r.steps), eval::format_count(double(r.stage_tokens)).c_str(), r.val_loss,
               final_ckpt.c_str());
  evaluate_round(ctx, 0, "pretrained", model, state, tok.data, open_vocab_mask(c.arch.vocab_size));
}

}  // namespace amxqa::train
