// round_sets.h — the example sets of the post-training rounds (sft_stop,
// sft_qa, sft_abstain) as each round builds them from the recipe, the run's
// tokenizer and the data files. Building writes and logs nothing, so
// `amxqa-train run` can build the sets ahead on a background thread
// (stages/sft_prefetch.h) with the same bits a round run on its own builds.
#pragma once
#include <string>
#include <vector>

#include "stages/run_context.h"
#include "stages/sft_data.h"

namespace amxqa::train {

// The recipe's SQuAD train file (squad.train), parsed on first use and kept
// for the next round that needs it (sft_qa, then sft_abstain). Not
// synchronised: each thread that builds sets has its own.
class SquadTrainFile {
 public:
  const std::vector<eval::SquadArticle>& articles(const RunConfig& cfg);

 private:
  std::string loaded_;
  std::vector<eval::SquadArticle> articles_;
};

// The round's set: stage is "sft_stop", "sft_qa" or "sft_abstain"; n and
// max_tokens come from the recipe's [stage] section; in the prompt format of
// the recipe's arch (apply_prompt_format).
SftSet build_round_set(const RunContext& ctx, const std::string& stage, const TokenizerView& tok,
                       SquadTrainFile& squad);

// Prints what the round's set holds beyond its size (the kinds of
// unanswerable questions) and throws when it misses what the recipe asks
// for; run on the stage's own thread, wherever the set was built.
void check_round_set(const RunContext& ctx, const std::string& stage, const SftSet& set);

}  // namespace amxqa::train
