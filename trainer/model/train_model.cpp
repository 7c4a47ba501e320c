// train_model.cpp — the parameter set of MODEL.md "Weights", its deterministic
// initialisation, gradient bookkeeping and the hand-off to the exporter.
#include <cmath>
#include <stdexcept>

#include "amxqa_generated.h"  // fb::LayerKind
#include "model/optimizer_units.h"
#include "model/train_impl.h"
#include "ops/ops.h"

namespace amxqa::train {
namespace {

// ArchConfig::layer_kinds holds the schema's LayerKind values.
static_assert(kLayerSwa == static_cast<uint8_t>(fb::LayerKind::swa) &&
                  kLayerLin == static_cast<uint8_t>(fb::LayerKind::lin),
              "kLayerSwa / kLayerLin mirror schemas/amxqa.fbs LayerKind");

uint64_t fnv1a(const std::string& s) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  return h;
}

// Box–Muller on splitmix64 (ours): portable, unlike std::normal_distribution.
void fill_normal(std::vector<float>& w, float stdev, uint64_t seed) {
  uint64_t s = seed;
  const double two_pi = 6.283185307179586;
  for (size_t i = 0; i < w.size(); i += 2) {
    const double u1 = (double((splitmix64(s) >> 11)) + 1.0) * 0x1.0p-53;  // (0, 1]
    const double u2 = double(splitmix64(s) >> 11) * 0x1.0p-53;
    const double r = std::sqrt(-2.0 * std::log(u1));
    w[i] = static_cast<float>(r * std::cos(two_pi * u2) * stdev);
    if (i + 1 < w.size()) w[i + 1] = static_cast<float>(r * std::sin(two_pi * u2) * stdev);
  }
}

void validate(const ArchConfig& a) {
  auto bad = [](const char* why) { throw std::invalid_argument(std::string("ArchConfig: ") + why); };
  if (a.d_model == 0 || a.n_layers == 0 || a.vocab_size <= kAbstain) bad("empty model");
  if (a.no_answer_head && !a.start_pointer) bad("no_answer_head needs start_pointer");
  if (a.passage_reader && !a.start_pointer) bad("passage_reader needs start_pointer");
  if (a.layer_kinds.size() != a.n_layers) bad("layer_kinds size != n_layers");
  if (a.n_heads == 0 || a.n_kv_heads == 0 || a.n_heads % a.n_kv_heads) bad("heads");
  if (a.head_dim == 0 || a.head_dim % 2) bad("head_dim must be even");
  if (a.window == 0 || a.lin_state == 0 || a.d_ff == 0) bad("window/lin_state/d_ff");
  for (uint32_t l : a.moe_layers)
    if (l >= a.n_layers) bad("moe layer index");
  if (!a.moe_layers.empty() &&
      (a.moe_experts == 0 || a.moe_top_k == 0 || a.moe_top_k > a.moe_experts ||
       a.moe_top_k > 64 || a.moe_d_ff == 0 || a.moe_route_block == 0 || a.moe_route_window == 0))
    bad("moe sizes");
}

}  // namespace

TrainModel::TrainModel(const ArchConfig& arch, uint64_t seed) : arch_(arch) {
  validate(arch_);
  impl_ = std::make_shared<Impl>();
  Work& im = *impl_;
  const uint32_t d = arch.d_model, H = arch.n_heads, G = arch.n_kv_heads, hd = arch.head_dim;
  const uint32_t dk = arch.lin_state, E = arch.moe_experts, f = arch.moe_d_ff;
  const float std_in = 0.02f;
  const float std_out = 0.02f / std::sqrt(2.0f * static_cast<float>(arch.n_layers));

  auto add = [&](const std::string& name, std::vector<uint32_t> shape, float stdev, bool decay,
                 uint32_t experts = 0) {
    Param p;
    p.name = name;
    p.shape = std::move(shape);
    size_t numel = 1;
    for (uint32_t s : p.shape) numel *= s;
    p.w.assign(numel, 0.f);
    p.g.assign(numel, 0.f);
    p.m.assign(numel, 0.f);
    p.v.assign(numel, 0.f);
    p.decay = decay;
    if (stdev > 0)
      fill_normal(p.w, stdev, seed ^ fnv1a(name));
    else if (stdev == 0)
      p.w.assign(numel, 1.f);  // norm gains
    p.touched.assign(experts, 0);
    params_.push_back(std::move(p));
    return static_cast<int>(params_.size() - 1);
  };

  im.tok_emb = add("tok_emb", {arch.vocab_size, d}, std_in, true);
  im.final_norm = add("final_norm", {d}, 0.f, false);
  im.layers.resize(arch.n_layers);
  im.acts.resize(arch.n_layers);
  for (uint32_t l = 0; l < arch.n_layers; ++l) {
    LayerIdx& L = im.layers[l];
    const std::string pre = "l" + std::to_string(l) + ".";
    L.lin = arch.layer_kinds[l] == kLayerLin;
    L.moe = arch.is_moe(l);
    L.attn_norm = add(pre + "attn_norm", {d}, 0.f, false);
    L.ffn_norm = add(pre + "ffn_norm", {d}, 0.f, false);
    if (L.lin) {
      L.wq = add(pre + "wq", {H * dk, d}, std_in, true);
      L.wk = add(pre + "wk", {H * dk, d}, std_in, true);
      L.wv = add(pre + "wv", {H * hd, d}, std_in, true);
      L.wo = add(pre + "wo", {d, H * hd}, std_out, true);
      L.wa = add(pre + "wa", {H, d}, std_in, true);
      L.ba = add(pre + "ba", {H}, -1.f, false);
      // a = exp(−softplus(ba)) = 1/(1 + e^ba) ⇒ ba = ln(1/a − 1); heads spread
      // geometrically in (1 − a) from a = 0.9 to a = 0.999 (ours).
      std::vector<float>& ba = params_[L.ba].w;
      for (uint32_t h = 0; h < H; ++h) {
        const double t = H > 1 ? double(h) / double(H - 1) : 0.0;
        const double one_minus_a = 0.1 * std::pow(0.01, t);
        const double av = 1.0 - one_minus_a;
        ba[h] = static_cast<float>(std::log(1.0 / av - 1.0));
      }
    } else {
      L.wq = add(pre + "wq", {H * hd, d}, std_in, true);
      L.wk = add(pre + "wk", {G * hd, d}, std_in, true);
      L.wv = add(pre + "wv", {G * hd, d}, std_in, true);
      L.wo = add(pre + "wo", {d, H * hd}, std_out, true);
    }
    if (L.moe) {
      L.router = add(pre + "router", {E, d}, std_in, true);
      L.moe_w1 = add(pre + "moe_w1", {E, f, d}, std_in, true, E);
      L.moe_w2 = add(pre + "moe_w2", {E, d, f}, std_out, true, E);
    } else {
      L.w1 = add(pre + "w1", {arch.d_ff, d}, std_in, true);
      L.w2 = add(pre + "w2", {d, arch.d_ff}, std_out, true);
    }
  }
  // MODEL.md "No-answer head": zero, so the head starts out adding nothing.
  if (arch.no_answer_head) im.no_answer_w = add("no_answer_w", {d, d}, -1.f, true);
  // MODEL.md "Passage reader": wo at zero, so the keys start as the old ones.
  if (arch.passage_reader) {
    const uint32_t r = ops::kReaderHeads * arch.head_dim;
    im.reader_wq = add("reader_wq", {r, d}, std_in, true);
    im.reader_wk = add("reader_wk", {r, d}, std_in, true);
    im.reader_wv = add("reader_wv", {r, d}, std_in, true);
    im.reader_wo = add("reader_wo", {d, r}, -1.f, true);
  }
  token_seen_.assign(arch.vocab_size, 0);
  weights_changed();  // new weights, maybe at the addresses of a freed model's
}

Param* TrainModel::find(const std::string& name) {
  for (Param& p : params_)
    if (p.name == name) return &p;
  return nullptr;
}

// Expert tensors: only touched slices can hold gradient (the MoE backward writes
// nothing else), so only those are cleared and summed.
void TrainModel::zero_grad() {
  for (Param& p : params_) {
    if (p.touched.empty()) {
      std::fill(p.g.begin(), p.g.end(), 0.f);
      continue;
    }
    const size_t slice = p.g.size() / p.touched.size();
    for (size_t e = 0; e < p.touched.size(); ++e)
      if (p.touched[e]) std::fill(p.g.begin() + e * slice, p.g.begin() + (e + 1) * slice, 0.f);
    std::fill(p.touched.begin(), p.touched.end(), 0);
  }
}

// The norm adamw_step clips by: unit sums in unit order.
double TrainModel::grad_norm() const {
  return units_norm(params_, optimizer_units(params_));
}

const StageTimes& TrainModel::stage_times() const { return impl_->times; }
void TrainModel::reset_stage_times() { impl_->times = StageTimes{}; }

std::vector<TensorSpec> TrainModel::to_tensors(DType matrix_dtype, uint8_t weight_bits) const {
  // Norm gains, ba, wa and router stay f32 (MODEL.md "Weights").
  auto is_matrix = [](const std::string& name) {
    const size_t dot = name.find('.');
    const std::string base = dot == std::string::npos ? name : name.substr(dot + 1);
    return base == "tok_emb" || base == "wq" || base == "wk" || base == "wv" || base == "wo" ||
           base == "w1" || base == "w2" || base == "moe_w1" || base == "moe_w2" ||
           base.rfind("reader_w", 0) == 0;  // MODEL.md "Passage reader"'s four
  };
  std::vector<TensorSpec> out;
  out.reserve(params_.size());
  for (const Param& p : params_) {
    TensorSpec t;
    t.name = p.name;
    t.shape = p.shape;
    t.values = p.w;
    t.dtype = is_matrix(p.name) ? matrix_dtype : DType::f32;
    // int8 matrices go out in vnni4 ([K/4][N][4]): the layout the VNNI and
    // AMX-INT8 kernels read in place (kernels/canonical_i8.h).
    if (t.dtype == DType::i8 && p.shape.size() >= 2 && p.shape.back() % 4 == 0)
      t.layout = Layout::vnni4;
    if (t.dtype == DType::i8) t.weight_bits = weight_bits;
    out.push_back(std::move(t));
  }
  return out;
}

}  // namespace amxqa::train
