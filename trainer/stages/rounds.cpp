#include "stages/rounds.h"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>

#include <nlohmann/json.hpp>

#include "json_members.h"
#include "stages/capi_model.h"
#include "stages/eval_qa.h"
#include "stages/export_model.h"
#include "stages/train_loop.h"

namespace amxqa::train {

const std::vector<eval::SquadArticle>& dev_articles(const RunContext& ctx) {
  static std::string loaded;
  static std::vector<eval::SquadArticle> dev;
  if (loaded != ctx.cfg.squad_dev) {
    dev = eval::load_squad(ctx.cfg.squad_dev);
    loaded = ctx.cfg.squad_dev;
  }
  return dev;
}

RoundRow evaluate_round(RunContext& ctx, int round, const std::string& name, const TrainModel& model,
                        const TrainState& state, const TokenizerData& tok, const std::vector<uint8_t>& mask) {
  const std::string path = ctx.out("round" + std::to_string(round) + ".amxqa");
  export_model_file(path, make_model_spec(ctx, model, state, tok, mask, {}, "round " + std::to_string(round)));
  CapiModel m(path);
  QaEvalOptions opt;
  opt.limit = ctx.cfg.round_eval_limit;
  opt.stop_limit = ctx.cfg.round_eval_limit;
  opt.show = 5;
  opt.seed = ctx.cfg.seed;
  QaEval e = evaluate_qa(m, dev_articles(ctx), opt);
  std::fprintf(stderr, "[round %d: %s] %s\n", round, name.c_str(), path.c_str());
  print_qa_eval(e, stderr);

  RoundRow row;
  row.round = round;
  row.name = name;
  row.em = e.em;
  row.f1 = e.f1;
  row.stop_rate = e.stop_rate;
  row.over_refusal = e.over_refusal;
  row.abstention = e.abstention;
  row.tokens = state.tokens_seen;
  row.wall_s = std::strtod(extra_get(state.extra, "wall").c_str(), nullptr);
  LogLine j = qa_eval_json(e);
  j["round"] = round;
  j["name"] = name;
  j["tokens"] = row.tokens;
  j["wall_s"] = row.wall_s;
  std::ofstream(ctx.out(kRoundsFile), std::ios::app) << eval::dump_json(j) << "\n";
  ctx.log->write({{"stage", "round"},
                  {"round", round},
                  {"name", name},
                  {"em", e.em},
                  {"f1", e.f1},
                  {"stop_rate", e.stop_rate},
                  {"over_refusal", e.over_refusal},
                  {"abstention", e.abstention},
                  {"total_tokens", row.tokens}});
  return row;
}

std::vector<RoundRow> read_rounds(const std::string& path) {
  std::ifstream f(path);
  std::map<int, RoundRow> rows;
  std::string line;
  while (std::getline(f, line)) {
    try {
      const nlohmann::json v = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
      auto num = [&](const char* k) {
        const nlohmann::json* x = eval::number_member(v, k);
        return x ? x->get<double>() : 0.0;
      };
      RoundRow r;
      r.round = static_cast<int>(num("round"));
      if (const std::string* n = eval::string_member(v, "name")) r.name = *n;
      r.em = num("em");
      r.f1 = num("f1");
      r.stop_rate = num("stop_rate");
      r.over_refusal = num("over_refusal");
      r.abstention = num("abstention");
      r.tokens = static_cast<uint64_t>(num("tokens"));
      r.wall_s = num("wall_s");
      rows[r.round] = r;
    } catch (const std::exception&) {
      // a torn last line of a killed run: ignore it
    }
  }
  std::vector<RoundRow> out;
  for (auto& kv : rows) out.push_back(kv.second);
  return out;
}

}  // namespace amxqa::train
