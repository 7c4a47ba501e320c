#include "stages/diagnose.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <stdexcept>

#include "amxqa_generated.h"
#include "data/pieces.h"
#include "model/train_model.h"
#include "recipe/run_config.h"
#include "stages/capi_model.h"
#include "stages/corpus_data.h"
#include "stages/diagnostics.h"
#include "stages/tokenizer_file.h"
#include "stages/train_loop.h"

namespace amxqa::train {
namespace {

std::string dir_of(const std::string& p) {
  size_t s = p.find_last_of('/');
  return s == std::string::npos ? "." : p.substr(0, s);
}

void print_gain_prs(const std::vector<GainPr>& prs, std::FILE* out) {
  std::fprintf(out, "RMSNorm gain participation ratios (PR = (sum|g|)^2 / sum g^2; n = flat, 1 = one spike):\n");
  size_t collapsed = 0;
  for (const GainPr& g : prs) {
    bool bad = g.pr < kCollapsePrShare * g.n;
    collapsed += bad;
    std::fprintf(out, "  %-16s PR %7.1f of %zu%s\n", g.name.c_str(), g.pr, g.n, bad ? "   <-- COLLAPSE WARNING" : "");
  }
  if (collapsed)
    std::fprintf(out, "WARNING: %zu gain vector(s) below %.0f%% of their width: collapse (paper failure 1)\n",
                 collapsed, 100 * kCollapsePrShare);
}

void print_histogram(const uint64_t* c, uint32_t e, std::FILE* out) {
  uint64_t mx = *std::max_element(c, c + e), total = 0;
  for (uint32_t i = 0; i < e; ++i) total += c[i];
  // Up to 32 rows: experts grouped into equal bins.
  uint32_t bins = std::min<uint32_t>(e, 32), per = (e + bins - 1) / bins;
  for (uint32_t b = 0; b * per < e; ++b) {
    uint64_t s = 0, bmx = 0;
    for (uint32_t i = b * per; i < std::min(e, (b + 1) * per); ++i) s += c[i], bmx = std::max(bmx, c[i]);
    int bar = mx ? static_cast<int>(40.0 * bmx / mx + 0.5) : 0;
    std::fprintf(out, "    experts %3u-%-3u %6.2f%% |%.*s\n", b * per, std::min(e, (b + 1) * per) - 1,
                 total ? 100.0 * s / total : 0.0, bar, "########################################");
  }
}

}  // namespace

bool is_model_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  char head[8] = {};
  f.read(head, 8);
  return f.gcount() == 8 && std::memcmp(head + 4, "AMXQ", 4) == 0;
}

void diagnose_checkpoint(const std::string& ckpt, const std::string& recipe_arg, std::FILE* out) {
  const std::string recipe_path = recipe_arg.empty() ? dir_of(ckpt) + "/recipe.recipe" : recipe_arg;
  Recipe recipe = Recipe::load(recipe_path);
  RunConfig cfg = read_run_config(recipe);
  TrainModel model(cfg.arch, cfg.seed);
  TrainState state;
  if (!load_checkpoint(ckpt, model, state)) throw std::runtime_error("cannot read checkpoint " + ckpt);
  const ArchConfig& a = cfg.arch;
  std::fprintf(out, "checkpoint %s: stage '%s', step %llu, %llu tokens seen; recipe %s\n", ckpt.c_str(),
               extra_get(state.extra, "stage").c_str(), static_cast<unsigned long long>(state.step),
               static_cast<unsigned long long>(state.tokens_seen), recipe_path.c_str());
  std::fprintf(out, "arch: d_model %u, layers [%s], vocab %u, MoE E %u k %u in %zu layers\n\n", a.d_model,
               layer_kinds_string(a).c_str(), a.vocab_size, a.moe_experts, a.moe_top_k, a.moe_layers.size());

  // Documents to measure on: pieces of the run's first data file.
  TokenizerData tokdata = load_tokenizer(dir_of(ckpt) + "/tokenizer.tok");
  OwnedTokenizer tok = make_owned_tokenizer(tokdata, a.vocab_size);
  CorpusOptions co;
  if (!cfg.data_files.empty()) co.files = {cfg.data_files[0]};
  co.max_bytes = 1 << 20;
  co.seq_len = std::min<uint32_t>(cfg.seq_len, 512);
  PieceStore store = build_pieces(tok.view, co);
  std::vector<Example> docs;
  for (size_t i = 0; i < 24 && store.size(); ++i) {
    docs.emplace_back();
    piece_example(store, static_cast<uint32_t>(i * store.size() / 24), docs.back());
  }

  // 1. Expert collapse.
  std::fprintf(out, "== 1. expert collapse ==\n");
  LossOptions lo;
  std::vector<uint64_t> counts;
  double loss = 0;
  uint64_t pred = 0;
  for (const Example& d : docs) {
    StepStats s = model.evaluate(d.tokens.data(), d.tokens.size(), d.mask.data(), lo);
    loss += s.loss_sum;
    pred += s.predicted;
    if (counts.size() < s.expert_counts.size()) counts.resize(s.expert_counts.size(), 0);
    for (size_t i = 0; i < s.expert_counts.size(); ++i) counts[i] += s.expert_counts[i];
  }
  if (a.moe_experts == 0) {
    std::fprintf(out, "dense model: no experts\n");
  } else {
    std::vector<double> prs = expert_prs(counts, a.moe_experts);
    for (size_t l = 0; l < prs.size(); ++l) {
      bool bad = prs[l] < kCollapsePrShare * a.moe_experts;
      std::fprintf(out, "  MoE layer %u: usage PR %.1f of %u experts%s\n", l < a.moe_layers.size() ? a.moe_layers[l] : 0u,
                   prs[l], a.moe_experts, bad ? "   <-- COLLAPSE WARNING" : "");
      print_histogram(counts.data() + l * a.moe_experts, a.moe_experts, out);
    }
  }
  print_gain_prs(norm_gain_prs(model), out);

  std::fprintf(out, "\n== 2. expert insertion ==\nno insertion performed (this trainer never grows E; a zero-init "
                    "expert would still take a top-k slot, so insertion is not function-preserving)\n");

  std::fprintf(out, "\n== 3. routing statistic ==\n");
  if (a.moe_experts == 0) {
    std::fprintf(out, "dense model: no routing\n");
  } else {
    std::fprintf(out, "statistic: %s (R = %u, block B = %u); shuffle ablation in recipe: %s\n",
                 a.moe_route_window >= cfg.seq_len ? "prefix mean" : "windowed mean", a.moe_route_window,
                 a.moe_route_block, cfg.pretrain.loss.shuffle_route_stat ? "on" : "off");
    LossOptions sh;
    sh.shuffle_route_stat = true;
    double sl = 0;
    uint64_t sp = 0;
    for (const Example& d : docs) {
      StepStats s = model.evaluate(d.tokens.data(), d.tokens.size(), d.mask.data(), sh);
      sl += s.loss_sum;
      sp += s.predicted;
    }
    std::fprintf(out, "validation loss: %.4f as trained, %.4f with the routing statistic shuffled\n",
                 pred ? loss / pred : NAN, sp ? sl / sp : NAN);
  }

  std::fprintf(out, "\n== 4. never-trained vocabulary rows ==\n");
  const auto& seen = model.token_seen();
  std::vector<uint8_t> never(a.vocab_size, 0);
  size_t n_never = 0;
  for (uint32_t i = kByteBase; i < a.vocab_size; ++i)
    if (i >= seen.size() || seen[i] == 0) never[i] = 1, ++n_never;
  std::fprintf(out, "%zu of %u non-special rows never seen as input or target\n", n_never, a.vocab_size - kByteBase);
  double s_never = 0, s_seen = 0, mx_never = -INFINITY;
  uint64_t c_never = 0, c_seen = 0, wins = 0, probes = 0;
  std::vector<float> logits;
  for (const Example& d : docs) {
    size_t n = std::max<size_t>(2, d.tokens.size() / 2);
    model.last_logits(d.tokens.data(), std::min(n, d.tokens.size()), logits);
    uint32_t arg = kEot;
    for (uint32_t i = kEot; i < logits.size(); ++i) {
      if (i == kAns) continue;
      if (logits[i] > logits[arg]) arg = i;
      if (never[i]) s_never += logits[i], ++c_never, mx_never = std::max<double>(mx_never, logits[i]);
      else s_seen += logits[i], ++c_seen;
    }
    wins += never[arg];
    ++probes;
  }
  if (n_never)
    std::fprintf(out, "logits: never-seen rows mean %.2f (max %.2f), trained rows mean %.2f; a never-seen row wins "
                      "the argmax at %llu of %llu positions%s\n",
                 c_never ? s_never / c_never : NAN, mx_never, c_seen ? s_seen / c_seen : NAN,
                 static_cast<unsigned long long>(wins), static_cast<unsigned long long>(probes),
                 wins ? "   <-- ship a vocabulary mask (vocab-fix)" : "");
}

void diagnose_model_file(const std::string& path, std::FILE* out) {
  CapiModel m(path);
  amxqa_model_info info = m.info();
  std::fprintf(out, "model %s: d_model %u, layers [%s], vocab %u, MoE E %u k %u, recipe '%s', %llu tokens\n\n",
               path.c_str(), info.d_model, info.layer_kinds, info.vocab_size, info.moe_experts, info.moe_top_k,
               info.recipe, static_cast<unsigned long long>(info.tokens_seen));
  // The file was verified by amxqa_model_open above, so the FlatBuffers view is safe.
  std::ifstream f(path, std::ios::binary);
  std::vector<char> bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  const auto* model = amxqa::fb::GetModel(bytes.data());
  std::vector<GainPr> prs;
  const uint8_t* weights = model->weights() ? model->weights()->data() : nullptr;
  for (const auto* t : *model->tensors()) {
    std::string name = t->name()->str();
    if (name.size() < 4 || name.compare(name.size() - 4, 4, "norm") != 0 || !weights) continue;
    if (t->dtype() != amxqa::fb::DType::f32 || !t->shape() || t->shape()->size() != 1) continue;
    size_t n = t->shape()->Get(0);
    std::vector<float> g(n);
    std::memcpy(g.data(), weights + t->offset(), n * sizeof(float));
    prs.push_back({name, participation_ratio(g.data(), n), n});
  }
  std::fprintf(out, "== 1. expert collapse ==\n");
  if (!info.moe_experts) std::fprintf(out, "dense model: no experts\n");
  else std::fprintf(out, "expert usage needs routing counts: run diagnose on the training checkpoint\n");
  print_gain_prs(prs, out);
  std::fprintf(out, "\n== 2. expert insertion ==\nno insertion performed\n");
  std::fprintf(out, "\n== 3. routing statistic ==\n");
  if (info.moe_experts)
    std::fprintf(out, "windowed mean over R = %u tokens, one decision per block of %u\n", info.moe_route_window,
                 info.moe_route_block);
  else
    std::fprintf(out, "dense model: no routing\n");
  std::fprintf(out, "\n== 4. never-trained vocabulary rows ==\nvocabulary mask bans %u of %u ids (PAD/BOS/ANS "
                    "always; the rest were never trained)%s\n",
               info.vocab_masked, info.vocab_size,
               info.vocab_masked <= 3 ? "   <-- no vocabulary fix applied" : "");
  for (const auto& s : m.scores()) std::fprintf(out, "stored score %s = %.3f\n", s.first.c_str(), s.second);
}

}  // namespace amxqa::train
