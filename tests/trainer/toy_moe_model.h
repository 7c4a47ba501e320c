// toy_moe_model.h — the trainer tests' smallest model with every layer kind
// (lin, swa) and a MoE layer, and a bitwise comparison of float vectors.
#pragma once
#include <cstring>
#include <vector>

#include "format/model_spec.h"

namespace amxqa::train::test {

inline ArchConfig toy_moe_arch() {
  ArchConfig a;
  a.d_model = 16;
  a.n_layers = 2;
  a.layer_kinds = {kLayerLin, kLayerSwa};
  a.n_heads = 2;
  a.n_kv_heads = 1;
  a.head_dim = 8;
  a.window = 8;
  a.lin_state = 8;
  a.d_ff = 32;
  a.moe_experts = 6;
  a.moe_top_k = 2;
  a.moe_d_ff = 8;
  a.moe_route_block = 8;
  a.moe_route_window = 8;
  a.moe_layers = {0};
  a.vocab_size = 64;
  return a;
}

inline bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

}  // namespace amxqa::train::test
