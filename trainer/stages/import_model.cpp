#include "stages/import_model.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <stdexcept>

#include "amxqa.hpp"
#include "amxqa_generated.h"
#include "kernels/bf16_inline.h"
#include "format/model_writer.h"
#include "model/train_model.h"
#include "stages/tokenizer_file.h"

namespace amxqa::train {
namespace {

std::vector<uint8_t> read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw std::runtime_error("cannot read " + path);
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
  // Flags a recipe may add to a model trained without them, never drop (the
  // model's answers read them): question_match and start_pointer add no
  // parameter (MODEL.md: the PAD row, the passage states), so a pretrained base
  // (recipe qa-v4) learns them from where it stands; no_answer_head and
  // passage_reader add tensors that start at zero (no_answer_w, reader_wo: the
  // old decisions and keys). end_pointer and question_reread may differ either
  // way: they add no parameter (recipes qa-v2.2, qa-v3-reread).
  auto added_only = [&](const char* what, bool model, bool recipe, const char* dropped) {
    if (model && !recipe)
      throw std::runtime_error("init.model " + path + ": arch." + what + " is set in the model but not in the recipe" +
                               dropped);
  };
  added_only("question_match", a.question_match(), c.question_match, "");
  added_only("start_pointer", a.start_pointer(), c.start_pointer, "");
  added_only("no_answer_head", a.no_answer_head(), c.no_answer_head, " (its no_answer_w would be dropped)");
  added_only("passage_reader", a.passage_reader(), c.passage_reader, " (its reader_w* would be dropped)");
  for (uint32_t l = 0; l < c.n_layers; ++l)
    same(("layer_kinds[" + std::to_string(l) + "]").c_str(),
         a.layer_kinds() && l < a.layer_kinds()->size() ? static_cast<uint64_t>(a.layer_kinds()->Get(l)) : 255, c.layer_kinds[l]);
}

// The model's tensor `name` as f32, checked against the trainer's shape.
// bf16 and i8 matrices are unpacked from their layout (vnni2 / vnni4) and an
// i8 one is dequantised (w = scale_row * q, MODEL.md "Weights"), so a shipped
// int8 model continues from exactly the weights it answers with.
void widen_into(const fb::Model& m, Param& p, const std::string& path) {
  const fb::Tensor* t = nullptr;
  for (const fb::Tensor* x : *m.tensors())
    if (x->name()->str() == p.name) t = x;
  if (!t) throw std::runtime_error("init.model " + path + ": no tensor " + p.name);
  std::vector<uint32_t> shape;
  if (t->shape()) shape.assign(t->shape()->begin(), t->shape()->end());
  if (shape != p.shape || shape.empty())
    throw std::runtime_error("init.model " + path + ": tensor " + p.name + " has another shape");
  const size_t n = p.w.size();
  const size_t elem = t->dtype() == fb::DType::f32 ? 4 : t->dtype() == fb::DType::bf16 ? 2 : 1;
  // The runtime's validator (amxqa_model_verify, run before this) has checked
  // offsets, sizes, layouts and the scales' place; these guard the arithmetic.
  if (t->size() != n * elem || t->offset() + t->size() > m.weights()->size())
    throw std::runtime_error("init.model " + path + ": tensor " + p.name + " is not of its shape");
  const uint64_t cols = shape.back(), rows = shape.size() >= 2 ? shape[shape.size() - 2] : 1;
  const uint64_t slice = rows * cols, slices = n / slice;
  const Layout layout = static_cast<Layout>(t->layout());
  const uint8_t* src = m.weights()->data() + t->offset();
  const uint8_t* scales = nullptr;
  if (t->dtype() == fb::DType::i8) {
    if (t->scale_offset() + slices * rows * 4 > m.weights()->size())
      throw std::runtime_error("init.model " + path + ": tensor " + p.name + " has no room for its scales");
    scales = m.weights()->data() + t->scale_offset();
  }
  for (uint64_t s = 0; s < slices; ++s)
    for (uint64_t r = 0; r < rows; ++r) {
      float scale = 0.f;
      if (scales) std::memcpy(&scale, scales + 4 * (s * rows + r), 4);
      for (uint64_t c = 0; c < cols; ++c) {
        const uint64_t i = s * slice + packed_index(layout, rows, cols, r, c);
        float& w = p.w[s * slice + r * cols + c];
        if (elem == 4) {
          std::memcpy(&w, src + 4 * i, 4);
        } else if (elem == 2) {
          uint16_t b;
          std::memcpy(&b, src + 2 * i, 2);
          w = bf16_bits_to_f32(b);
        } else {
          w = scale * static_cast<float>(static_cast<int8_t>(src[i]));
        }
      }
    }
}

}  // namespace

// The file's bytes, checked by the runtime's own validator (every check
// amxqa_model_open makes, not a second one) on the file mapped, since it
// wants the 64-byte alignment a model is opened with.
std::vector<uint8_t> read_verified_model(const std::string& path) {
  std::vector<uint8_t> bytes = read_file(path);
  std::string why;
  const amxqa::Status st = amxqa::Model::verify_file(path, [&](amxqa_status, const char* message) {
    if (why.empty()) why = message ? message : "";
  });
  if (!st.ok()) throw std::runtime_error(path + ": not a valid .amxqa model: " + (why.empty() ? st.message : why));
  return bytes;
}

void import_init_model(RunContext& ctx) {
  const std::string path = ctx.recipe.path("init.model");
  if (path.empty()) return;
  // init.after: the stages the model stands for. "sft_stop" (a released QA
  // model: the run goes on with round 2) or "pretrain" (a base: round 1 runs).
  const std::string after = ctx.recipe.str("init.after", "sft_stop");
  if (after != "sft_stop" && after != "pretrain")
    throw std::runtime_error("init.after must be sft_stop or pretrain, not '" + after + "'");
  // init.final_norm_rms (0: keep): rescale the final norm's gain to this RMS.
  // A pretrained base's gain is large (v4-base: 2.74, against v2.2's 1.07),
  // because its tied readout wants sharp logits; the start and end pointers'
  // scores h . U multiply two final-normed states, so they start at the square
  // of it (no-answer margins near -2,000), and QA SFT spends its first steps
  // at clipped gradients bringing them back (qa-v4.recipe). One scale on one
  // vector: the readout's choices are the same, only softer. Checked before
  // the model is read, like init.after.
  const double gain_rms = ctx.recipe.number("init.final_norm_rms", 0.0);
  if (!(gain_rms >= 0 && gain_rms <= 100))
    throw std::runtime_error("init.final_norm_rms must be in [0, 100] (0 keeps the model's gain)");
  const bool stop_too = after == "sft_stop";
  const std::string tok_out = ctx.out(kTokenizerFile), pre = ctx.out(stage_checkpoint("pretrain")),
                    stop = ctx.out(stage_checkpoint("sft_stop"));
  if (file_exists(tok_out) && file_exists(pre) && (!stop_too || file_exists(stop))) return;
  const std::vector<uint8_t> bytes = read_verified_model(path);
  const fb::Model& m = *fb::GetModel(bytes.data());
  const ArchConfig& arch = ctx.cfg.arch;
  check_arch(*m.arch(), arch, path);

  TokenizerData tok;
  tok.max_chunk_len = m.tokenizer()->max_chunk_len();
  if (m.tokenizer()->merges())
    for (const fb::Merge* mg : *m.tokenizer()->merges()) tok.merges.emplace_back(mg->left(), mg->right());
  save_tokenizer(tok_out, tok);

  TrainModel model(arch, ctx.cfg.seed);
  for (Param& p : model.params()) {
    // MODEL.md "No-answer head": a model without it gets the head at zero.
    if (p.name == "no_answer_w" && !m.arch()->no_answer_head()) continue;
    // MODEL.md "Passage reader": a model without it gets the trainer's init (wo zero).
    if (p.name.rfind("reader_w", 0) == 0 && !m.arch()->passage_reader()) continue;
    widen_into(m, p, path);
  }
  if (gain_rms > 0) {
    Param& gain = *model.find("final_norm");
    double ss = 0;
    for (const float w : gain.w) ss += double(w) * w;
    const double rms = std::sqrt(ss / double(gain.w.size()));
    if (!(rms > 0) || !std::isfinite(rms))
      throw std::runtime_error("init.model " + path + ": final_norm's RMS is " + std::to_string(rms) +
                               ", which init.final_norm_rms cannot rescale");
    for (float& w : gain.w) w = float(w * (gain_rms / rms));
    std::fprintf(stderr, "[init] final_norm gain RMS %.4f -> %.4f\n", rms, gain_rms);
  }
  const auto* mask = m.vocab_mask();
  for (uint32_t i = 0; i < arch.vocab_size; ++i)
    model.token_seen()[i] = mask && i / 8 < mask->size() ? (mask->Get(i / 8) >> (i % 8)) & 1 : 1;
  TrainState state;
  state.extra = "stage=init\ninit_model=" + path + "\n";
  save_checkpoint(pre, model, state);
  if (stop_too) save_checkpoint(stop, model, state);
  std::fprintf(stderr, "[init] %s -> %s, %s%s%s (%zu tensors)\n", path.c_str(), tok_out.c_str(), pre.c_str(),
               stop_too ? ", " : "", stop_too ? stop.c_str() : "", model.params().size());
}

void set_recipe_arch(Recipe& recipe, const std::string& path) {
  const std::vector<uint8_t> bytes = read_verified_model(path);
  const fb::Arch& a = *fb::GetModel(bytes.data())->arch();
  auto set = [&](const char* key, uint64_t v) { recipe.set(std::string("arch.") + key, std::to_string(v)); };
  auto flag = [&](const char* key, bool v) { recipe.set(std::string("arch.") + key, v ? "true" : "false"); };
  set("d_model", a.d_model());
  set("n_layers", a.n_layers());
  std::string kinds, moe_layers;
  for (uint32_t l = 0; a.layer_kinds() && l < a.layer_kinds()->size(); ++l)
    kinds += (l ? " " : "") + std::string(static_cast<uint8_t>(a.layer_kinds()->Get(l)) == kLayerLin ? "lin" : "swa");
  recipe.set("arch.layer_kinds", kinds);
  set("n_heads", a.n_heads());
  set("n_kv_heads", a.n_kv_heads());
  set("head_dim", a.head_dim());
  set("window", a.window());
  set("lin_state", a.lin_state());
  set("d_ff", a.d_ff());
  set("moe_experts", a.moe_experts());
  if (a.moe_experts()) {
    set("moe_top_k", a.moe_top_k());
    set("moe_d_ff", a.moe_d_ff());
    set("moe_route_block", a.moe_route_block());
    set("moe_route_window", a.moe_route_window());
    for (uint32_t l = 0; a.moe_layers() && l < a.moe_layers()->size(); ++l)
      moe_layers += (l ? " " : "") + std::to_string(a.moe_layers()->Get(l));
    recipe.set("arch.moe_layers", moe_layers);
  }
  set("vocab_size", a.vocab_size());
  char num[32];
  std::snprintf(num, sizeof num, "%.9g", double(a.rope_theta()));
  recipe.set("arch.rope_theta", num);
  std::snprintf(num, sizeof num, "%.9g", double(a.norm_eps()));
  recipe.set("arch.norm_eps", num);
  flag("question_match", a.question_match());
  flag("start_pointer", a.start_pointer());
  flag("end_pointer", a.end_pointer());
  flag("no_answer_head", a.no_answer_head());
  flag("question_reread", a.question_reread());
  flag("passage_reader", a.passage_reader());
}

}  // namespace amxqa::train
