// random_model.cpp — make_random_model(): deterministic models with random
// weights for tests and benches. The tokenizer is fixed (not trained): the
// "tiny" preset has a short list of common English merges, so encoding really
// merges; larger vocabularies add deterministic synthetic letter merges.
//
// Preset choices not fixed by random_model.h:
//   tiny:      window 32 (so short passages already slide the window), d_ff 160,
//              E 4, k 2, moe_d_ff 48, route block 8, route window 16.
//   reference: 2 query heads of 32, 1 KV head, lin_state 32 (the paper),
//              route block 256 and route window 256.
// Matrices take `dtype`; bf16 matrices are packed vnni2 and i8 matrices
// vnni4, except tok_emb, which stays plain (it is read by rows). Norm gains,
// wa, ba and router are always f32.
#include <cmath>
#include <map>
#include <set>
#include <stdexcept>
#include <string>

#include "format/random_model.h"
#include "format/splitmix64.h"

namespace amxqa {
namespace {

struct SplitMix64 {
  uint64_t s;
  uint64_t next() { return splitmix64(s); }
  float uniform() { return float(next() >> 40) * (1.0f / 16777216.0f); }  // [0, 1)
  float symmetric(float a) { return (2.f * uniform() - 1.f) * a; }
};

// Merges that build these strings, each from two earlier pieces.
const char* const kFixedMerges[] = {
    "th", "he", "in", "er", "an", " t", " a", "on", "re", "at", "en", "nd", "ed",
    "is", "or", "es", "it", "ou", "of", " s", " w", " o", "the", " th", " the", "ing",
    "and", " and", " of", " in", " is", " it", " wh", "ion", "ent", " re", "as", " b", " c"};

}  // namespace

TokenizerData make_reference_tokenizer(uint32_t vocab_size) {
  if (vocab_size < kMergeBase) throw std::runtime_error("make_random_model: vocab below 261");
  const uint32_t n_merges = vocab_size - kMergeBase;
  std::map<std::string, uint32_t> id_of;
  for (uint32_t b = 0; b < 256; ++b) id_of[std::string(1, char(b))] = kByteBase + b;
  TokenizerData tok;
  auto add = [&](const std::string& left, const std::string& right) {
    const uint32_t id = kMergeBase + static_cast<uint32_t>(tok.merges.size());
    tok.merges.emplace_back(id_of.at(left), id_of.at(right));
    id_of[left + right] = id;
  };
  for (const char* target : kFixedMerges) {
    if (tok.merges.size() == n_merges) return tok;
    const std::string s = target;
    size_t cut = s.size() - 1;  // longest known prefix whose rest is known too
    while (cut > 0 && !(id_of.count(s.substr(0, cut)) && id_of.count(s.substr(cut)))) --cut;
    if (cut == 0) throw std::runtime_error("make_random_model: no split for merge " + s);
    add(s.substr(0, cut), s.substr(cut));
  }
  // Synthetic lower-case words for large vocabularies: an existing letter
  // piece of at most 7 bytes plus one letter, never a duplicate.
  std::vector<std::string> letter_pieces;
  for (const auto& kv : id_of) {
    bool letters = kv.first.size() <= 7;
    for (char c : kv.first) letters &= c >= 'a' && c <= 'z';
    if (letters) letter_pieces.push_back(kv.first);
  }
  SplitMix64 rng{0x746f6b656e697a65ull};  // fixed: the tokenizer never depends on the seed
  while (tok.merges.size() < n_merges) {
    const std::string& left = letter_pieces[rng.next() % letter_pieces.size()];
    const std::string right(1, char('a' + rng.next() % 26));
    if (id_of.count(left + right)) continue;
    add(left, right);
    if (left.size() + 1 <= 7) letter_pieces.push_back(left + right);
  }
  return tok;
}

namespace {

ArchConfig preset(const std::string& shape) {
  ArchConfig a;
  if (shape == "tiny") {
    a.d_model = 64;
    a.n_layers = 2;
    a.layer_kinds = {kLayerLin, kLayerSwa};
    a.n_heads = 2, a.n_kv_heads = 1, a.head_dim = 32, a.window = 32, a.lin_state = 32;
    a.d_ff = 160;
    a.moe_experts = 4, a.moe_top_k = 2, a.moe_d_ff = 48, a.moe_route_block = 8;
    a.moe_route_window = 16;
    a.moe_layers = {0};
    a.vocab_size = 300;
  } else if (shape == "reference") {
    a.d_model = 256;
    a.n_layers = 6;
    a.layer_kinds = {kLayerLin, kLayerSwa, kLayerSwa, kLayerLin, kLayerSwa, kLayerLin};
    a.n_heads = 2, a.n_kv_heads = 1, a.head_dim = 32, a.window = 256, a.lin_state = 32;
    a.d_ff = 640;
    a.moe_experts = 128, a.moe_top_k = 4, a.moe_d_ff = 160, a.moe_route_block = 256;
    a.moe_route_window = 256;
    a.moe_layers = {0, 3, 5};
    a.vocab_size = 16384;
  } else {
    throw std::runtime_error("make_random_model: unknown shape \"" + shape +
                             "\" (tiny, reference)");
  }
  return a;
}

class TensorMaker {
 public:
  TensorMaker(ModelSpec& spec, uint64_t seed, DType dtype) : spec_(spec), rng_{seed}, dtype_(dtype) {}

  // A matrix (or stacked experts) with uniform values of standard deviation 1/sqrt(cols).
  void matrix(const std::string& name, std::vector<uint32_t> shape, bool plain = false) {
    const float a = std::sqrt(3.f / float(shape.back()));
    TensorSpec& t = add(name, std::move(shape));
    for (float& v : t.values) v = rng_.symmetric(a);
    t.dtype = dtype_;
    if (!plain && dtype_ == DType::bf16) t.layout = Layout::vnni2;
    if (!plain && dtype_ == DType::i8) t.layout = Layout::vnni4;
  }
  // An f32 tensor with values uniform in [center - a, center + a].
  void f32(const std::string& name, std::vector<uint32_t> shape, float center, float a) {
    TensorSpec& t = add(name, std::move(shape));
    for (float& v : t.values) v = center + rng_.symmetric(a);
  }

 private:
  TensorSpec& add(const std::string& name, std::vector<uint32_t> shape) {
    TensorSpec t;
    t.name = name;
    uint64_t n = 1;
    for (uint32_t d : shape) n *= d;
    t.shape = std::move(shape);
    t.values.resize(n);
    spec_.tensors.push_back(std::move(t));
    return spec_.tensors.back();
  }
  ModelSpec& spec_;
  SplitMix64 rng_;
  DType dtype_;
};

}  // namespace

ModelSpec make_random_model(const std::string& shape, uint64_t seed, DType dtype) {
  ModelSpec spec;
  spec.arch = preset(shape);
  const ArchConfig& a = spec.arch;
  spec.tokenizer = make_reference_tokenizer(a.vocab_size);
  spec.vocab_mask.assign(a.vocab_size, 1);
  spec.vocab_mask[kPad] = spec.vocab_mask[kBos] = spec.vocab_mask[kAns] = 0;
  spec.provenance.recipe = "random-" + shape;
  spec.provenance.notes = "make_random_model(\"" + shape + "\", " + std::to_string(seed) + ")";

  const uint32_t d = a.d_model, H = a.n_heads, G = a.n_kv_heads, hd = a.head_dim, dk = a.lin_state;
  TensorMaker make(spec, seed, dtype);
  make.matrix("tok_emb", {a.vocab_size, d}, /*plain=*/true);
  make.f32("final_norm", {d}, 1.f, 0.1f);
  for (uint32_t l = 0; l < a.n_layers; ++l) {
    const std::string p = "l" + std::to_string(l) + ".";
    const bool lin = a.layer_kinds[l] == kLayerLin;
    make.f32(p + "attn_norm", {d}, 1.f, 0.1f);
    make.f32(p + "ffn_norm", {d}, 1.f, 0.1f);
    make.matrix(p + "wq", {H * (lin ? dk : hd), d});
    make.matrix(p + "wk", {lin ? H * dk : G * hd, d});
    make.matrix(p + "wv", {(lin ? H : G) * hd, d});
    make.matrix(p + "wo", {d, H * hd});
    if (lin) {
      make.f32(p + "wa", {H, d}, 0.f, std::sqrt(3.f / float(d)));
      make.f32(p + "ba", {H}, 0.f, 1.f);
    }
    if (a.is_moe(l)) {
      make.f32(p + "router", {a.moe_experts, d}, 0.f, std::sqrt(3.f / float(d)));
      make.matrix(p + "moe_w1", {a.moe_experts, a.moe_d_ff, d});
      make.matrix(p + "moe_w2", {a.moe_experts, d, a.moe_d_ff});
    } else {
      make.matrix(p + "w1", {a.d_ff, d});
      make.matrix(p + "w2", {d, a.d_ff});
    }
  }
  return spec;
}

}  // namespace amxqa
