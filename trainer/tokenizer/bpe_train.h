// bpe_train.h — trains the byte-level BPE merges of schemas/MODEL.md
// "Tokenizer" on a stream of documents. Chunks come from the runtime's own
// pretokenize(), so training and encoding split text identically.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "format/model_spec.h"

namespace amxqa {

// Yields the next document into `doc` and returns true, or returns false at
// the end. Each document is pre-tokenized on its own (nothing spans two).
using TextSource = std::function<bool(std::string& doc)>;

struct BpeTrainOptions {
  uint32_t max_chunk_len = 64;    // stored in the result; must be 1..kMaxChunkLen
  uint64_t min_pair_count = 2;    // stop early when the best pair is rarer than this
  uint64_t max_input_bytes = 0;   // stop reading the source after this many bytes (0 = all)
  bool verbose = false;           // progress lines on stderr
};

struct BpeTrainStats {
  uint64_t documents = 0, bytes = 0, chunks = 0, unique_chunks = 0;
  double count_seconds = 0, merge_seconds = 0;
};

// Learns up to vocab_size - kMergeBase merges (fewer only if the corpus runs
// out of pairs seen min_pair_count times). Deterministic: each step merges the
// pair with the highest count, ties to the lowest (left, right) ids; inside a
// chunk occurrences are replaced left to right, as the runtime encoder does.
// Throws std::invalid_argument for vocab_size < kMergeBase or a bad max_chunk_len.
TokenizerData train_bpe(const TextSource& source, uint32_t vocab_size,
                        const BpeTrainOptions& options = {}, BpeTrainStats* stats = nullptr);

// Convenience overload over documents in memory.
TokenizerData train_bpe(const std::vector<std::string>& documents, uint32_t vocab_size,
                        const BpeTrainOptions& options = {}, BpeTrainStats* stats = nullptr);

}  // namespace amxqa
