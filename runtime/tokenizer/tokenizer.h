// tokenizer.h — byte-level BPE encoding and decoding over a read-only view of
// the model file's tokenizer (schemas/MODEL.md "Tokenizer"). No allocation:
// callers pass output arrays; the only scratch is on the stack (one chunk).
// The trainer encodes its corpora with this same code.
#pragma once
#include <cstddef>
#include <cstdint>

namespace amxqa {

struct TokenizerView {
  uint32_t vocab_size = 0;
  uint32_t byte_base = 5, merge_base = 261;
  const uint32_t* merges = nullptr;       // n_merges pairs (left, right), rank order
  uint32_t n_merges = 0;
  const uint32_t* merge_index = nullptr;  // n_merges ranks sorted by (left, right)
  const uint8_t* piece_bytes = nullptr;
  const uint32_t* piece_offsets = nullptr;  // vocab_size + 1
  uint32_t max_piece_len = 0;
  uint32_t max_chunk_len = 64;            // ≤ kMaxChunkLen
};

constexpr uint32_t kMaxChunkLen = 256;

// Splits text into pre-tokenizer chunks; calls on_chunk(user, begin, len) for each.
void pretokenize(const char* text, size_t len, uint32_t max_chunk_len,
                 void (*on_chunk)(void* user, size_t begin, size_t len), void* user);

// Rank of the merge (left, right), or UINT32_MAX if none. Binary search.
uint32_t merge_rank(const TokenizerView& tok, uint32_t left, uint32_t right);

// Encodes text. Writes at most cap ids to ids[] and, if offsets is non-null, the
// byte offset (into text) where each token starts. Returns the total number of
// tokens the text needs (which may exceed cap; then only cap were written).
size_t encode(const TokenizerView& tok, const char* text, size_t len, uint32_t* ids,
              uint32_t* offsets, size_t cap);

// Bytes of one id; nullptr and len 0 when out of range.
const uint8_t* token_bytes(const TokenizerView& tok, uint32_t id, size_t* len);

}  // namespace amxqa
