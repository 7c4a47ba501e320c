// owned_tokenizer.h — the runtime's TokenizerView built over in-memory arrays,
// so the trainer and the tests encode with exactly the runtime's code
// (runtime/tokenizer) before any model file exists.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "format/model_spec.h"
#include "tokenizer/tokenizer.h"

namespace amxqa {

// Owns the arrays `view` points into. Movable (vector buffers keep their
// addresses on move), not copyable (a copy would point into the original).
struct OwnedTokenizer {
  std::vector<uint32_t> merges_flat;    // (left, right) per rank
  std::vector<uint32_t> merge_index;    // ranks sorted by (left, right, rank)
  std::vector<uint32_t> piece_offsets;  // vocab_size + 1
  std::vector<uint8_t> piece_bytes;
  TokenizerView view;

  OwnedTokenizer() = default;
  OwnedTokenizer(OwnedTokenizer&&) = default;
  OwnedTokenizer& operator=(OwnedTokenizer&&) = default;
  OwnedTokenizer(const OwnedTokenizer&) = delete;
  OwnedTokenizer& operator=(const OwnedTokenizer&) = delete;
};

// Builds the view for a vocabulary of vocab_size ids (>= kMergeBase). Only the
// first vocab_size - kMergeBase merges are used. Throws std::runtime_error when
// a merge refers to an id not defined before it.
OwnedTokenizer make_owned_tokenizer(const TokenizerData& data, uint32_t vocab_size);

// Encodes a whole text with the runtime encoder (tokens never outnumber bytes,
// so one pass suffices). offsets, when given, receives each token's first byte.
std::vector<uint32_t> encode_text(const TokenizerView& tok, const std::string& text,
                                  std::vector<uint32_t>* offsets = nullptr);

// Concatenated bytes of the ids (specials decode to their "<|...|>" pieces).
std::string decode_ids(const TokenizerView& tok, const uint32_t* ids, size_t n);

}  // namespace amxqa
