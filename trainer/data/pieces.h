// pieces.h — pretraining data as packed pieces. A corpus is split into
// documents (blank-line paragraphs, optionally joined up to min_doc_bytes);
// each document becomes BOS + its tokens, and a long document is cut into
// pieces of at most seq_len tokens, each starting with its own BOS (MODEL.md:
// nothing crosses a BOS). A held-out validation slice is chosen by seed, and
// training pieces are visited in a seeded order that is reshuffled each
// epoch, addressed by a single cursor so a resumed run continues exactly.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "tokenizer/tokenizer.h"

namespace amxqa::train {

struct PieceStore {
  std::vector<uint32_t> tokens;
  std::vector<uint64_t> offsets{0};  // pieces + 1
  size_t size() const { return offsets.size() - 1; }
  const uint32_t* piece(size_t i, size_t* n) const {
    *n = static_cast<size_t>(offsets[i + 1] - offsets[i]);
    return tokens.data() + offsets[i];
  }
  uint64_t token_count() const { return tokens.size(); }
};

// Adds BOS-prefixed pieces of one document (doc holds no BOS). seq_len >= 2.
void append_document(PieceStore& store, const uint32_t* doc, size_t n, uint32_t seq_len);

struct CorpusOptions {
  std::vector<std::string> files;
  uint64_t max_bytes = 0;     // per file, 0 = all
  uint32_t seq_len = 1024;
  uint32_t min_doc_bytes = 0; // join consecutive paragraphs (with "\n\n") up to this size
  bool join_lines = true;
};

// Streams and tokenizes every file. `progress(bytes_done)` is called now and then.
PieceStore build_pieces(const TokenizerView& tok, const CorpusOptions& opt,
                        const std::function<void(uint64_t)>& progress = nullptr);

// Binary cache of a PieceStore, keyed so a changed tokenizer/option set is
// never reused. load returns false when absent, stale or malformed.
void save_pieces(const std::string& path, const PieceStore& store, uint64_t key);
bool load_pieces(const std::string& path, uint64_t key, PieceStore& store);

struct DataSplit {
  std::vector<uint32_t> train, val;  // piece indices
};
// `val` pieces (at most half the pieces) chosen by seed; the rest train.
DataSplit split_pieces(size_t n_pieces, size_t val, uint64_t seed);

// Cursor → training piece. Epoch e visits all training pieces in the order of
// a Fisher-Yates shuffle seeded by (seed, e).
class PieceOrder {
 public:
  PieceOrder(std::vector<uint32_t> train, uint64_t seed) : base_(std::move(train)), seed_(seed) {}
  uint32_t at(uint64_t cursor);
  size_t size() const { return base_.size(); }
 private:
  std::vector<uint32_t> base_, perm_;
  uint64_t seed_, epoch_ = ~0ull;
};

}  // namespace amxqa::train
