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

// The reference models' tokenizer for vocab_size ids (at least kMergeBase):
// a fixed list of common English merges, then deterministic synthetic letter
// merges. A valid BPE merge list (each merge joins ids made before it), so the
// runtime encoder's tests can check it against a naive reference encoder
// without a trained tokenizer.
TokenizerData make_reference_tokenizer(uint32_t vocab_size);

}  // namespace amxqa
