#include "model_json.h"

#include <cstring>
#include <nlohmann/json.hpp>

namespace amxqa::serve {

using json = nlohmann::ordered_json;

namespace {
// A fixed char array of amxqa_model_info, read up to its NUL or its end.
template <size_t N>
std::string text(const char (&a)[N]) {
  return std::string(a, strnlen(a, N));
}
}  // namespace

namespace {
json model_object(const amxqa::Model& model) {
  amxqa_model_info i = amxqa_model_info_init();
  amxqa_model_get_info(model.get(), &i);
  json arch = {{"layer_kinds", text(i.layer_kinds)},
               {"d_model", i.d_model},
               {"n_layers", i.n_layers},
               {"n_heads", i.n_heads},
               {"n_kv_heads", i.n_kv_heads},
               {"head_dim", i.head_dim},
               {"window", i.window},
               {"d_ff", i.d_ff},
               {"moe_experts", i.moe_experts},
               {"moe_top_k", i.moe_top_k},
               {"moe_layer_count", i.moe_layer_count},
               {"vocab_size", i.vocab_size},
               {"weight_dtype", text(i.weight_dtype)},
               {"weight_bits", i.weight_bits},
               {"param_count", i.param_count},
               {"active_param_count", i.active_param_count}};
  json scores = json::object();
  for (const auto& [name, value] : model.scores()) scores[name] = value;
  json j = {{"version", amxqa_version()},
            {"format_version", i.format_version},
            {"arch", std::move(arch)},
            {"recipe", text(i.recipe)},
            {"trainer_version", text(i.trainer_version)},
            {"tokens_seen", i.tokens_seen},
            {"calibrated", i.calibrated != 0},
            {"no_answer_threshold", i.no_answer_threshold},
            {"calibration_method", text(i.calibration_method)},
            {"scores", std::move(scores)}};
  return j;
}
}  // namespace

std::string model_info_json(const amxqa::Model& model) {
  return model_object(model).dump(-1, ' ', false, json::error_handler_t::replace);
}

std::string model_info_body(const amxqa::Model& model, size_t workers, uint32_t max_passage_tokens) {
  json j = model_object(model);
  j["workers"] = workers;
  j["max_passage_tokens"] = max_passage_tokens;
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

}  // namespace amxqa::serve
