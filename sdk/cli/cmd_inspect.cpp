// cmd_inspect.cpp — `amxqa inspect M`: what a model file holds.
#include <cstdio>
#include <string>

#include "cli_common.h"
#include "commands.h"
#include "model_json.h"

namespace amxqa::cli {

namespace {

const char kHelp[] =
    "usage: amxqa inspect [MODEL] [--json]\n\n"
    "Opens (and so fully verifies) the model and prints its architecture, sizes,\n"
    "vocabulary-mask statistics, provenance, its no-answer calibration and the scores\n"
    "recorded at training; --json prints them as one JSON object (as GET /v1/model).\n";

double mib(uint64_t bytes) { return static_cast<double>(bytes) / (1024.0 * 1024.0); }
double millions(uint64_t n) { return static_cast<double>(n) / 1e6; }

}  // namespace

int cmd_inspect(int argc, char** argv, int first) {
  const char* cmd = "inspect";
  std::string path;
  bool json = false;
  if (int rc = parse_model_file_args(cmd, argc, argv, first, kHelp, &path, &json); rc >= 0) return rc;

  amxqa::Model model = amxqa::Model::open_file(path);
  if (!model.ok()) return fail(cmd, path + ": " + model.status().name() + ": " + model.status().message);
  if (json) {
    std::printf("%s\n", serve::model_info_json(model).c_str());
    return kExitOk;
  }
  amxqa_model_info i = amxqa_model_info_init();
  amxqa_status st = amxqa_model_get_info(model.get(), &i);
  if (st != AMXQA_OK) return fail(cmd, std::string("amxqa_model_get_info: ") + amxqa_status_name(st));

  std::printf("file           %s (%zu bytes, %.2f MiB), format version %u\n", path.c_str(), model.size(),
              mib(model.size()), i.format_version);
  std::printf("layers         %u: %s\n", i.n_layers, i.layer_kinds);
  std::printf("width          d_model %u, MLP d_ff %u\n", i.d_model, i.d_ff);
  std::printf("attention      %u heads, %u kv heads, head_dim %u, window %u; linear-attention state %u\n",
              i.n_heads, i.n_kv_heads, i.head_dim, i.window, i.lin_state);
  if (i.moe_layer_count > 0)
    std::printf("moe            %u layers: %u experts, top-%u, expert d_ff %u, routed per %u-token block "
                "(window %u)\n",
                i.moe_layer_count, i.moe_experts, i.moe_top_k, i.moe_d_ff, i.moe_route_block,
                i.moe_route_window);
  else
    std::printf("moe            none\n");
  const double masked_pct = i.vocab_size ? 100.0 * i.vocab_masked / i.vocab_size : 0.0;
  std::printf("vocabulary     %u tokens; mask forbids %u (%.1f%%), allows %u\n", i.vocab_size, i.vocab_masked,
              masked_pct, i.vocab_size - i.vocab_masked);
  std::printf("weights        %s%s, %.2f MiB\n", i.weight_dtype,
              i.weight_bits == 7 ? " (7-bit: every int8 weight in [-64, 63])" : "", mib(i.weight_bytes));
  std::printf("parameters     %.3f M total, %.3f M active per token\n", millions(i.param_count),
              millions(i.active_param_count));
  std::printf("trainer        %s\n", i.trainer_version[0] ? i.trainer_version : "(unknown)");
  std::printf("recipe         %s\n", i.recipe[0] ? i.recipe : "(none)");
  std::printf("tokens seen    %llu\n", static_cast<unsigned long long>(i.tokens_seen));
  if (i.calibrated)
    std::printf("no-answer      threshold %g (%s)\n", double(i.no_answer_threshold), i.calibration_method);
  else
    std::printf("no-answer      threshold 0 (uncalibrated)\n");
  auto scores = model.scores();
  if (scores.empty()) std::printf("scores         (none recorded)\n");
  for (size_t k = 0; k < scores.size(); ++k)
    std::printf("%-14s %-24s %.4g\n", k == 0 ? "scores" : "", scores[k].first.c_str(),
                static_cast<double>(scores[k].second));
  return kExitOk;
}

}  // namespace amxqa::cli
