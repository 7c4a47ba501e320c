#include "stages/round_sets.h"

#include <cstdio>
#include <stdexcept>

#include "gz_text.h"

namespace amxqa::train {
namespace {

// Round 1's paragraphs, drawn from the pretraining corpus: `want` spread
// over its files, each of 150-3000 bytes. With sft_stop.line_paragraphs each
// line of a blank-line-separated block is one (Wikipedia's file holds a
// paragraph per line and an article per block).
std::vector<std::string> stop_paragraphs(const RunContext& ctx, size_t want) {
  std::vector<std::string> out;
  const auto& files = ctx.cfg.data_files;
  const bool lines = ctx.cfg.sft_stop.line_paragraphs;
  for (const auto& f : files) {
    size_t per_file = want / files.size() + 1, got = 0;
    auto take = [&](const std::string& p) {
      if (p.size() >= 150 && p.size() <= 3000) {
        out.push_back(p);
        ++got;
      }
      return got < per_file;
    };
    eval::for_each_paragraph(f, 64ull << 20, !lines && ctx.recipe.boolean("data.join_lines", true),
                             [&](const std::string& block) {
                               if (!lines) return take(block);
                               for (size_t b = 0; b < block.size();) {
                                 size_t e = block.find('\n', b);
                                 if (e == std::string::npos) e = block.size();
                                 if (!take(block.substr(b, e - b))) return false;
                                 b = e + 1;
                               }
                               return true;
                             });
  }
  return out;
}

}  // namespace

const std::vector<eval::SquadArticle>& SquadTrainFile::articles(const RunConfig& cfg) {
  if (loaded_ != cfg.squad_train) {
    articles_ = eval::load_squad(cfg.squad_train, /*keep_unanswerable=*/true);
    loaded_ = cfg.squad_train;
  }
  return articles_;
}

namespace {

// The round's examples in the plain prompt format.
SftSet build_plain_set(const RunContext& ctx, const std::string& stage, const TokenizerView& tok,
                       SquadTrainFile& squad) {
  const RunConfig& rc = ctx.cfg;
  const size_t max_tokens = static_cast<size_t>(ctx.recipe.integer(stage + ".max_tokens", rc.seq_len));
  if (stage == "sft_stop") {
    const StageConfig& c = rc.sft_stop;
    const size_t n = c.examples;
    // 4 paragraphs per wanted example, so skips are covered.
    return build_stop_set(stop_paragraphs(ctx, 4 * (n + 64)), tok, n, 64, max_tokens, rc.seed,
                          ClozeMix{c.cloze_frac, c.cloze_twin_frac});
  }
  if (stage == "sft_qa") {
    const StageConfig& c = rc.sft_qa;
    const UnanswerableMix mix{c.unanswerable_frac, c.unanswerable_kinds, c.hard_negative_frac};
    const RealUnanswerableMix real{c.real_unanswerable_frac, c.real_provenance};
    return build_qa_set(squad.articles(rc), tok, c.examples, 64, max_tokens, rc.seed, c.crop_frac, mix, real);
  }
  if (stage == "sft_abstain") {
    const StageConfig& c = rc.sft_abstain;
    const RealUnanswerableMix real{c.real_unanswerable_frac, c.real_provenance};
    return build_abstain_set(squad.articles(rc), tok, c.examples, 64, c.unanswerable_frac, max_tokens, rc.seed + 3,
                             real);
  }
  throw std::logic_error("build_round_set: " + stage + " is not a post-training round");
}

}  // namespace

SftSet build_round_set(const RunContext& ctx, const std::string& stage, const TokenizerView& tok,
                       SquadTrainFile& squad) {
  SftSet set = build_plain_set(ctx, stage, tok, squad);
  apply_prompt_format(ctx.cfg.arch, tok, set);
  return set;
}

void check_round_set(const RunContext& ctx, const std::string& stage, const SftSet& set) {
  if (stage == "sft_stop" && ctx.cfg.sft_stop.cloze_frac > 0) {
    std::fprintf(stderr, "[sft_stop] cloze questions and twins %zu (of %zu); unanswerable twins in train %zu\n",
                 set.cloze, set.train.size() + set.val.size(), set.unanswerable);
    if (set.cloze == 0)
      throw std::runtime_error("sft_stop.cloze_frac > 0, but no paragraph of the data files gave a cloze question");
  } else if (stage == "sft_qa") {
    if (set.unanswerable > 0) {
      std::fprintf(stderr, "[sft_qa] unanswerable: real %zu;", set.real);
      for (int k = 0; k < kUnanswerableKinds; ++k)
        std::fprintf(stderr, " %s %zu", unanswerable_kind_name(static_cast<UnanswerableKind>(k)), set.by_kind[k]);
      std::fprintf(stderr, "\n");
    }
    if (ctx.cfg.sft_qa.real_unanswerable_frac > 0 && set.real == 0)
      throw std::runtime_error("sft_qa.real_unanswerable_frac > 0, but " + ctx.cfg.squad_train +
                               " holds no unanswerable question of the kept provenance (a SQuAD 2.0 file?)");
  } else if (stage == "sft_abstain") {
    std::fprintf(stderr, "[sft_abstain] real unanswerable %zu\n", set.real);
  }
}

}  // namespace amxqa::train
