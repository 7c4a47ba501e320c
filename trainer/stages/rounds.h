// rounds.h — the paper's table, one row per post-training round: after each
// stage the model is exported (out/roundN.amxqa) and scored through the C API
// on the dev split (eval.round_limit questions); rows go to out/rounds.jsonl.
#pragma once
#include <string>
#include <vector>

#include "model/train_model.h"
#include "squad_file.h"
#include "stages/run_context.h"

namespace amxqa::train {

struct RoundRow {
  int round = 0;
  std::string name;
  double em = 0, f1 = 0, stop_rate = 0, over_refusal = 0, abstention = 0;
  uint64_t tokens = 0;
  double wall_s = 0;
};

// The dev split, read once per process.
const std::vector<eval::SquadArticle>& dev_articles(const RunContext& ctx);

RoundRow evaluate_round(RunContext& ctx, int round, const std::string& name, const TrainModel& model,
                        const TrainState& state, const TokenizerData& tok, const std::vector<uint8_t>& mask);

// Latest row of each round from out/rounds.jsonl, by round number.
std::vector<RoundRow> read_rounds(const std::string& path);

}  // namespace amxqa::train
