// The three post-training rounds (sft_stop, sft_qa, sft_abstain): build the
// round's set (stages/sft_data.h), continue from the previous stage's
// checkpoint, then export and score the round through the C API.
#include <cstdio>
#include <stdexcept>

#include "gz_text.h"
#include "stages/export_model.h"
#include "stages/rounds.h"
#include "stages/sft_data.h"
#include "stages/stages.h"
#include "stages/unanswerable.h"

namespace amxqa::train {
namespace {

using SetBuilder = std::function<SftSet(const TokenizerView&, size_t max_tokens, size_t n)>;

const std::vector<eval::SquadArticle>& train_articles(const RunContext& ctx) {
  static std::string loaded;
  static std::vector<eval::SquadArticle> train;
  if (loaded != ctx.cfg.squad_train) {
    train = eval::load_squad(ctx.cfg.squad_train, /*keep_unanswerable=*/true);
    loaded = ctx.cfg.squad_train;
  }
  return train;
}

void run_sft(RunContext& ctx, const std::string& stage, const std::string& prev, const StageConfig& cfg, int round,
             const SetBuilder& build) {
  const std::string final_ckpt = ctx.out(stage_checkpoint(stage));
  if (file_exists(final_ckpt)) {
    std::fprintf(stderr, "[%s] %s exists: skipped\n", stage.c_str(), final_ckpt.c_str());
    return;
  }
  const RunConfig& c = ctx.cfg;
  RunTokenizer tok = load_run_tokenizer(ctx);
  const size_t max_tokens = static_cast<size_t>(ctx.recipe.integer(stage + ".max_tokens", c.seq_len));
  Progress clock(stage, 1, 0);
  SftSet set = build(tok.owned.view, max_tokens, cfg.examples);
  std::fprintf(stderr, "[%s] %zu training examples (%zu abstention), %zu validation, %zu skipped (unmappable or > %zu tokens) in %s\n",
               stage.c_str(), set.train.size(), set.unanswerable, set.val.size(), set.skipped, max_tokens,
               format_duration(clock.elapsed()).c_str());
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

std::vector<std::string> stop_paragraphs(const RunContext& ctx, size_t want) {
  std::vector<std::string> out;
  const auto& files = ctx.cfg.data_files;
  for (const auto& f : files) {
    size_t per_file = want / files.size() + 1, got = 0;
    eval::for_each_paragraph(f, 64ull << 20, ctx.recipe.boolean("data.join_lines", true), [&](const std::string& p) {
      if (p.size() >= 150 && p.size() <= 3000) {
        out.push_back(p);
        ++got;
      }
      return got < per_file;
    });
  }
  return out;
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

void stage_sft_stop(RunContext& ctx) {
  run_sft(ctx, "sft_stop", "pretrain", ctx.cfg.sft_stop, 1, [&](const TokenizerView& tok, size_t max_tokens, size_t n) {
    // Paragraphs are drawn from the pretraining corpus (4 per wanted example, so skips are covered).
    return build_stop_set(stop_paragraphs(ctx, 4 * (n + 64)), tok, n, 64, max_tokens, ctx.cfg.seed);
  });
}

void stage_sft_qa(RunContext& ctx) {
  run_sft(ctx, "sft_qa", "sft_stop", ctx.cfg.sft_qa, 2, [&](const TokenizerView& tok, size_t max_tokens, size_t n) {
    const StageConfig& c = ctx.cfg.sft_qa;
    const UnanswerableMix mix{c.unanswerable_frac, c.unanswerable_kinds, c.hard_negative_frac};
    const RealUnanswerableMix real{c.real_unanswerable_frac, c.real_provenance};
    SftSet set = build_qa_set(train_articles(ctx), tok, n, 64, max_tokens, ctx.cfg.seed, c.crop_frac, mix, real);
    if (set.unanswerable > 0) {
      std::fprintf(stderr, "[sft_qa] unanswerable: real %zu;", set.real);
      for (int k = 0; k < kUnanswerableKinds; ++k)
        std::fprintf(stderr, " %s %zu", unanswerable_kind_name(static_cast<UnanswerableKind>(k)), set.by_kind[k]);
      std::fprintf(stderr, "\n");
    }
    if (c.real_unanswerable_frac > 0 && set.real == 0)
      throw std::runtime_error("sft_qa.real_unanswerable_frac > 0, but " + ctx.cfg.squad_train +
                               " holds no unanswerable question of the kept provenance (a SQuAD 2.0 file?)");
    return set;
  });
}

void stage_sft_abstain(RunContext& ctx) {
  run_sft(ctx, "sft_abstain", "sft_qa", ctx.cfg.sft_abstain, 3,
          [&](const TokenizerView& tok, size_t max_tokens, size_t n) {
            const StageConfig& c = ctx.cfg.sft_abstain;
            const RealUnanswerableMix real{c.real_unanswerable_frac, c.real_provenance};
            SftSet set = build_abstain_set(train_articles(ctx), tok, n, 64, c.unanswerable_frac, max_tokens,
                                           ctx.cfg.seed + 3, real);
            std::fprintf(stderr, "[sft_abstain] real unanswerable %zu\n", set.real);
            return set;
          });
}

}  // namespace amxqa::train
