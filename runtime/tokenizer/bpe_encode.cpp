// bpe_encode.cpp — byte-level BPE encoding (schemas/MODEL.md "Tokenizer",
// step 2) and decoding of single ids. Works on a read-only TokenizerView; the
// only scratch is one chunk on the stack, so encode() never allocates.
#include <cstdint>
#include <cstring>

#include "tokenizer/tokenizer.h"

namespace amxqa {

namespace {

// (left, right) of the merge at merge_index[i] as one comparable key. A corrupt
// index entry (rank out of range) reads as key 0 instead of past merges[].
inline uint64_t key_at(const TokenizerView& tok, uint32_t i) {
  const uint32_t r = tok.merge_index[i];
  const size_t at = r < tok.n_merges ? 2 * size_t(r) : 0;
  const uint64_t k = (static_cast<uint64_t>(tok.merges[at]) << 32) | tok.merges[at + 1];
  return r < tok.n_merges ? k : 0;
}

}  // namespace

uint32_t merge_rank(const TokenizerView& tok, uint32_t left, uint32_t right) {
  // Branch-free lower_bound over merge_index (ranks sorted by (left, right)):
  // the encoder spends most of its time here, on unpredictable comparisons.
  if (tok.n_merges == 0) return UINT32_MAX;
  const uint64_t key = (static_cast<uint64_t>(left) << 32) | right;
  // Invariant: the first entry with a key >= `key` lies in [lo, lo + n].
  uint32_t lo = 0, n = tok.n_merges;
  while (n > 1) {
    const uint32_t half = n / 2;
    lo = key_at(tok, lo + half) < key ? lo + half : lo;
    n -= half;
  }
  lo += key_at(tok, lo) < key ? 1 : 0;
  if (lo < tok.n_merges && key_at(tok, lo) == key) return tok.merge_index[lo];
  return UINT32_MAX;
}

namespace {

constexpr uint32_t kNoMerge = UINT32_MAX;

struct EncodeState {
  const TokenizerView* tok;
  const char* text;
  uint32_t* ids;
  uint32_t* offsets;
  size_t cap;
  size_t count;  // tokens produced so far, including those past cap
};

inline void emit(EncodeState& st, uint32_t id, size_t offset) {
  if (st.count < st.cap) {
    st.ids[st.count] = id;
    if (st.offsets) st.offsets[st.count] = static_cast<uint32_t>(offset);
  }
  ++st.count;
}

// Merges one chunk: repeatedly the adjacent pair with the lowest rank, leftmost
// on ties. rank[i] caches the rank of (sym[i], sym[i+1]), so each merge costs a
// linear scan plus two binary searches for the new neighbours.
void encode_chunk(void* user, size_t begin, size_t len) {
  EncodeState& st = *static_cast<EncodeState*>(user);
  const TokenizerView& tok = *st.tok;
  const uint8_t* bytes = reinterpret_cast<const uint8_t*>(st.text + begin);
  if (len == 1) {
    emit(st, tok.byte_base + bytes[0], begin);
    return;
  }
  uint32_t sym[kMaxChunkLen], start[kMaxChunkLen], rank[kMaxChunkLen];
  size_t n = len;  // pretokenize() caps chunks at kMaxChunkLen
  for (size_t i = 0; i < n; ++i) {
    sym[i] = tok.byte_base + bytes[i];
    start[i] = static_cast<uint32_t>(i);
  }
  for (size_t i = 0; i + 1 < n; ++i) rank[i] = merge_rank(tok, sym[i], sym[i + 1]);
  while (n > 1) {
    size_t best = 0;
    for (size_t i = 1; i + 1 < n; ++i) {
      if (rank[i] < rank[best]) best = i;
    }
    const uint32_t r = rank[best];
    if (r == kNoMerge) break;
    sym[best] = tok.merge_base + r;
    // Drop element best+1; rank[best] is recomputed below.
    const size_t tail = n - best - 2;
    std::memmove(sym + best + 1, sym + best + 2, tail * sizeof(uint32_t));
    std::memmove(start + best + 1, start + best + 2, tail * sizeof(uint32_t));
    std::memmove(rank + best + 1, rank + best + 2, (tail > 0 ? tail - 1 : 0) * sizeof(uint32_t));
    --n;
    if (best > 0) rank[best - 1] = merge_rank(tok, sym[best - 1], sym[best]);
    if (best + 1 < n) rank[best] = merge_rank(tok, sym[best], sym[best + 1]);
  }
  // start[0..n) was filled above and only shifted down since; cppcheck loses
  // track through the memmoves (zero-filling the array per chunk would cost).
  // cppcheck-suppress uninitvar
  for (size_t i = 0; i < n; ++i) emit(st, sym[i], begin + start[i]);
}

}  // namespace

size_t encode(const TokenizerView& tok, const char* text, size_t len, uint32_t* ids,
              uint32_t* offsets, size_t cap) {
  if (text == nullptr || len == 0) return 0;
  if (ids == nullptr) cap = 0;
  EncodeState st{&tok, text, ids, offsets, cap, 0};
  pretokenize(text, len, tok.max_chunk_len, encode_chunk, &st);
  return st.count;
}

const uint8_t* token_bytes(const TokenizerView& tok, uint32_t id, size_t* len) {
  if (len) *len = 0;
  if (id >= tok.vocab_size || tok.piece_offsets == nullptr || tok.piece_bytes == nullptr) return nullptr;
  const uint32_t b = tok.piece_offsets[id], e = tok.piece_offsets[id + 1];
  if (e < b) return nullptr;
  if (len) *len = e - b;
  return tok.piece_bytes + b;
}

}  // namespace amxqa
