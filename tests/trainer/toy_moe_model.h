// toy_moe_model.h — the trainer tests' smallest model with every layer kind
// (lin, swa) and a MoE layer, and bitwise comparisons of float vectors and
// of whole models.
#pragma once
#include <doctest/doctest.h>

#include <cstring>
#include <vector>

#include "format/model_spec.h"
#include "model/train_model.h"

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

// Every weight, moment and token count equal, bit for bit.
inline void check_same_model(const TrainModel& a, const TrainModel& b) {
  REQUIRE(a.params().size() == b.params().size());
  for (size_t i = 0; i < a.params().size(); ++i) {
    const Param& p = a.params()[i];
    const Param& q = b.params()[i];
    CAPTURE(p.name);
    CHECK(same_bits(p.w, q.w));
    CHECK(same_bits(p.m, q.m));
    CHECK(same_bits(p.v, q.v));
  }
  CHECK(a.token_seen() == b.token_seen());
}

}  // namespace amxqa::train::test
