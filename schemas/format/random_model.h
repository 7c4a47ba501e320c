// random_model.h — deterministic models with random weights, the reference
// models of the runtime tests, the fuzzers, the bench and amxqa-make-test-model.
#pragma once
#include <cstdint>
#include <string>

#include "format/model_spec.h"

namespace amxqa {

// A deterministic tiny model with random weights for tests and benches
// (no trained tokenizer: a handful of fixed merges). `shape` picks a preset:
// "tiny" (d 64, 2 layers lin+swa, MoE in layer 0, vocab 300) or
// "reference" (the paper's shape: d 256, lin swa swa lin swa lin, window 256,
// MLP 640, E 128 k 4 d_ff_e 160 in layers 0 3 5, vocab 16384).
ModelSpec make_random_model(const std::string& shape, uint64_t seed, DType dtype = DType::f32);

}  // namespace amxqa
