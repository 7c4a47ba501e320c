// owned_tokenizer.cpp — derives the per-id bytes of a trained tokenizer
// (TokenizerData::pieces) and builds the runtime's TokenizerView over owned
// arrays (owned_tokenizer.h), the same arrays the exporter writes to the file.
#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "format/model_spec.h"
#include "format/owned_tokenizer.h"

namespace amxqa {

std::vector<std::string> TokenizerData::pieces(uint32_t vocab_size) const {
  static const char* const kSpecials[kByteBase] = {"<|pad|>", "<|bos|>", "<|eot|>", "<|ans|>", "<|abstain|>"};
  std::vector<std::string> out(vocab_size);
  for (uint32_t id = 0; id < vocab_size && id < kByteBase; ++id) out[id] = kSpecials[id];
  for (uint32_t id = kByteBase; id < vocab_size && id < kMergeBase; ++id) {
    out[id] = std::string(1, static_cast<char>(id - kByteBase));
  }
  // Merge r makes id kMergeBase + r from two ids defined before it. Ids past
  // the last merge (a corpus too small for the vocabulary) stay empty.
  for (uint32_t r = 0; r < merges.size() && kMergeBase + r < vocab_size; ++r) {
    const uint32_t id = kMergeBase + r;
    const auto [left, right] = merges[r];
    if (left < kByteBase || right < kByteBase || left >= id || right >= id) {
      throw std::runtime_error("tokenizer: merge " + std::to_string(r) + " refers to an undefined id");
    }
    out[id] = out[left] + out[right];
  }
  return out;
}

OwnedTokenizer make_owned_tokenizer(const TokenizerData& data, uint32_t vocab_size) {
  if (vocab_size < kMergeBase) throw std::runtime_error("tokenizer: vocab_size below 261");
  OwnedTokenizer t;
  const uint32_t n_merges = static_cast<uint32_t>(std::min<size_t>(data.merges.size(), vocab_size - kMergeBase));
  t.merges_flat.reserve(2 * size_t(n_merges));
  for (uint32_t r = 0; r < n_merges; ++r) {
    t.merges_flat.push_back(data.merges[r].first);
    t.merges_flat.push_back(data.merges[r].second);
  }
  t.merge_index.resize(n_merges);
  for (uint32_t r = 0; r < n_merges; ++r) t.merge_index[r] = r;
  // A duplicated pair keeps its lowest rank first, which merge_rank() finds.
  std::sort(t.merge_index.begin(), t.merge_index.end(), [&](uint32_t a, uint32_t b) {
    const auto& ma = data.merges[a];
    const auto& mb = data.merges[b];
    if (ma != mb) return ma < mb;
    return a < b;
  });

  const std::vector<std::string> pieces = data.pieces(vocab_size);
  uint32_t max_piece_len = 0;
  t.piece_offsets.reserve(vocab_size + 1);
  t.piece_offsets.push_back(0);
  for (const std::string& p : pieces) {
    t.piece_bytes.insert(t.piece_bytes.end(), p.begin(), p.end());
    t.piece_offsets.push_back(static_cast<uint32_t>(t.piece_bytes.size()));
    max_piece_len = std::max<uint32_t>(max_piece_len, static_cast<uint32_t>(p.size()));
  }

  TokenizerView& v = t.view;
  v.vocab_size = vocab_size;
  v.byte_base = kByteBase;
  v.merge_base = kMergeBase;
  v.merges = t.merges_flat.data();
  v.n_merges = n_merges;
  v.merge_index = t.merge_index.data();
  v.piece_bytes = t.piece_bytes.data();
  v.piece_offsets = t.piece_offsets.data();
  v.max_piece_len = max_piece_len;
  v.max_chunk_len = (data.max_chunk_len == 0 || data.max_chunk_len > kMaxChunkLen) ? kMaxChunkLen : data.max_chunk_len;
  return t;
}

std::vector<uint32_t> encode_text(const TokenizerView& tok, const std::string& text,
                                  std::vector<uint32_t>* offsets) {
  std::vector<uint32_t> ids(text.size());
  if (offsets) offsets->resize(text.size());
  const size_t n = encode(tok, text.data(), text.size(), ids.data(), offsets ? offsets->data() : nullptr, ids.size());
  ids.resize(n);
  if (offsets) offsets->resize(n);
  return ids;
}

std::string decode_ids(const TokenizerView& tok, const uint32_t* ids, size_t n) {
  std::string out;
  for (size_t i = 0; i < n; ++i) {
    size_t len = 0;
    const uint8_t* p = token_bytes(tok, ids[i], &len);
    if (p) out.append(reinterpret_cast<const char*>(p), len);
  }
  return out;
}

}  // namespace amxqa
