// tokenizer_reference.h — what the tokenizer tests check the runtime encoder
// against: the pre-tokenizer's chunks as strings, a naive reference encoder,
// and deterministic test text. Shared by tests/runtime/test_tokenizer.cpp
// (the reference models' merges) and tests/trainer/test_bpe_train.cpp
// (trained merges).
#pragma once
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "format/model_spec.h"
#include "tokenizer/tokenizer.h"

namespace amxqa::test {

// pretokenize()'s chunks of `text`, as strings.
std::vector<std::string> chunks_of(const std::string& text, uint32_t max_chunk_len = 64);

// Reference encoder: for each chunk, apply the merges in rank order, each one
// left to right over the whole chunk. Independent of merge_index and of the
// runtime's "lowest rank first" loop, which must give the same result.
std::vector<uint32_t> reference_encode(const TokenizerData& data, const std::string& text);

// A deterministic small English-like corpus with digits, punctuation,
// newlines and some UTF-8.
std::vector<std::string> small_corpus(uint32_t seed, size_t docs);

// n random bytes favouring those that pre-tokenize interestingly: letters,
// spaces, NULs, high bytes.
std::string random_bytes(std::mt19937& rng, size_t n);

// The bytes of ids, concatenated.
std::string decode_all(const TokenizerView& tok, const std::vector<uint32_t>& ids);

}  // namespace amxqa::test
