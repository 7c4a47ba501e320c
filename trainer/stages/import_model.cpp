#include "stages/import_model.h"

#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <stdexcept>

#include "amxqa.h"
#include "amxqa_generated.h"
#include "kernels/bf16_inline.h"
#include "model/train_model.h"
#include "stages/tokenizer_file.h"

namespace amxqa::train {
namespace {

std::vector<uint8_t> read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw std::runtime_error("init.model: cannot read " + path);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(f), {});
}

void check_arch(const fb::Arch& a, const ArchConfig& c, const std::string& path) {
  auto same = [&](const char* what, uint64_t model, uint64_t recipe) {
    if (model != recipe)
      throw std::runtime_error("init.model " + path + ": arch." + what + " is " + std::to_string(model) +
                               " in the model but " + std::to_string(recipe) + " in the recipe");
  };
  same("d_model", a.d_model(), c.d_model);
  same("n_layers", a.n_layers(), c.n_layers);
  same("n_heads", a.n_heads(), c.n_heads);
  same("n_kv_heads", a.n_kv_heads(), c.n_kv_heads);
  same("head_dim", a.head_dim(), c.head_dim);
  same("window", a.window(), c.window);
  same("lin_state", a.lin_state(), c.lin_state);
  same("d_ff", a.d_ff(), c.d_ff);
  same("moe_experts", a.moe_experts(), c.moe_experts);
  same("vocab_size", a.vocab_size(), c.vocab_size);
  same("question_match", a.question_match(), c.question_match);
  same("start_pointer", a.start_pointer(), c.start_pointer);
  // end_pointer may differ: it adds no parameter, so a model trained without
  // it can learn it from where it stands (recipe qa-v2.2).
  for (uint32_t l = 0; l < c.n_layers; ++l)
    same(("layer_kinds[" + std::to_string(l) + "]").c_str(),
         a.layer_kinds() && l < a.layer_kinds()->size() ? static_cast<uint64_t>(a.layer_kinds()->Get(l)) : 255, c.layer_kinds[l]);
}

// The model's tensor `name` as f32, checked against the trainer's shape.
void widen_into(const fb::Model& m, Param& p, const std::string& path) {
  const fb::Tensor* t = nullptr;
  for (const fb::Tensor* x : *m.tensors())
    if (x->name()->str() == p.name) t = x;
  if (!t) throw std::runtime_error("init.model " + path + ": no tensor " + p.name);
  std::vector<uint32_t> shape;
  if (t->shape()) shape.assign(t->shape()->begin(), t->shape()->end());
  if (shape != p.shape) throw std::runtime_error("init.model " + path + ": tensor " + p.name + " has another shape");
  if (t->layout() != fb::Layout::plain)
    throw std::runtime_error("init.model " + path + ": tensor " + p.name + " is not in plain layout");
  const size_t n = p.w.size();
  const size_t elem = t->dtype() == fb::DType::f32 ? 4 : t->dtype() == fb::DType::bf16 ? 2 : 0;
  if (elem == 0 || t->size() != n * elem || t->offset() + t->size() > m.weights()->size())
    throw std::runtime_error("init.model " + path + ": tensor " + p.name + " is not f32/bf16 of its shape");
  const uint8_t* src = m.weights()->data() + t->offset();
  for (size_t i = 0; i < n; ++i) {
    if (elem == 4) {
      std::memcpy(&p.w[i], src + 4 * i, 4);
    } else {
      uint16_t b;
      std::memcpy(&b, src + 2 * i, 2);
      p.w[i] = bf16_bits_to_f32(b);
    }
  }
}

}  // namespace

void import_init_model(RunContext& ctx) {
  const std::string path = ctx.recipe.path("init.model");
  if (path.empty()) return;
  const std::string tok_out = ctx.out(kTokenizerFile), pre = ctx.out(stage_checkpoint("pretrain")),
                    stop = ctx.out(stage_checkpoint("sft_stop"));
  if (file_exists(tok_out) && file_exists(pre) && file_exists(stop)) return;
  const std::vector<uint8_t> bytes = read_file(path);
  // The runtime's own validator (every check amxqa_model_open makes), not a second one.
  std::string why;
  const auto first_failure = [](void* user, amxqa_status, const char* message) {
    auto* w = static_cast<std::string*>(user);
    if (w->empty()) *w = message ? message : "";
  };
  if (amxqa_model_verify(bytes.data(), bytes.size(), first_failure, &why) != AMXQA_OK)
    throw std::runtime_error("init.model " + path + ": not a valid .amxqa model: " + why);
  const fb::Model& m = *fb::GetModel(bytes.data());
  const ArchConfig& arch = ctx.cfg.arch;
  check_arch(*m.arch(), arch, path);

  TokenizerData tok;
  tok.max_chunk_len = m.tokenizer()->max_chunk_len();
  if (m.tokenizer()->merges())
    for (const fb::Merge* mg : *m.tokenizer()->merges()) tok.merges.emplace_back(mg->left(), mg->right());
  save_tokenizer(tok_out, tok);

  TrainModel model(arch, ctx.cfg.seed);
  for (Param& p : model.params()) widen_into(m, p, path);
  const auto* mask = m.vocab_mask();
  for (uint32_t i = 0; i < arch.vocab_size; ++i)
    model.token_seen()[i] = mask && i / 8 < mask->size() ? (mask->Get(i / 8) >> (i % 8)) & 1 : 1;
  TrainState state;
  state.extra = "stage=init\ninit_model=" + path + "\n";
  save_checkpoint(pre, model, state);
  save_checkpoint(stop, model, state);
  std::fprintf(stderr, "[init] %s -> %s, %s, %s (%zu tensors)\n", path.c_str(), tok_out.c_str(), pre.c_str(),
               stop.c_str(), model.params().size());
}

}  // namespace amxqa::train
