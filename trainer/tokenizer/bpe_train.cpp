// bpe_train.cpp — classic BPE training with incremental pair counts.
//
// 1. Every document is cut into chunks by the runtime's pretokenize(); equal
//    chunks are counted once ("words" with a multiplicity).
// 2. Pair counts over all words sit in a hash map, with a max-heap of
//    (count, pair) entries that are checked lazily against the map on pop, and
//    for each pair the list of words that may contain it.
// 3. A merge rewrites only the words on its list, and moves the counts of the
//    pairs those words lose and gain — so each step costs the size of the
//    affected words, not the size of the corpus.
#include "tokenizer/bpe_train.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <queue>
#include <stdexcept>
#include <unordered_map>

#include "tokenizer/tokenizer.h"

namespace amxqa {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

inline uint64_t pair_key(uint32_t left, uint32_t right) {
  return (static_cast<uint64_t>(left) << 32) | right;
}

// Chunk text -> occurrences. Keys are the chunk bytes.
using ChunkCounts = std::unordered_map<std::string, uint64_t>;

struct CountContext {
  const std::string* doc;
  ChunkCounts* counts;
  std::string scratch;  // reused key; chunks are short, so assign() rarely allocates
  uint64_t chunks = 0;
};

void count_chunk(void* user, size_t begin, size_t len) {
  CountContext& ctx = *static_cast<CountContext*>(user);
  ++ctx.chunks;
  if (len < 2) return;  // a single byte has no pair to merge
  ctx.scratch.assign(ctx.doc->data() + begin, len);
  auto it = ctx.counts->find(ctx.scratch);
  if (it != ctx.counts->end()) ++it->second;
  else ctx.counts->emplace(ctx.scratch, 1);
}

// All distinct chunks as symbol sequences, stored flat; each word shrinks in place.
struct Words {
  std::vector<uint32_t> symbols;
  std::vector<uint32_t> begin, len;
  std::vector<uint64_t> count;
};

struct HeapEntry {
  uint64_t count;
  uint64_t key;
};
// Max-heap order: higher count first, then the lower (left, right) pair.
struct HeapLess {
  bool operator()(const HeapEntry& a, const HeapEntry& b) const {
    if (a.count != b.count) return a.count < b.count;
    return a.key > b.key;
  }
};

class PairTable {
 public:
  explicit PairTable(const Words& w) {
    for (uint32_t wi = 0; wi < w.begin.size(); ++wi) {
      const uint32_t* s = &w.symbols[w.begin[wi]];
      for (uint32_t i = 0; i + 1 < w.len[wi]; ++i) {
        const uint64_t k = pair_key(s[i], s[i + 1]);
        counts_[k] += w.count[wi];
        std::vector<uint32_t>& where = where_[k];
        if (where.empty() || where.back() != wi) where.push_back(wi);
      }
    }
    std::vector<HeapEntry> entries;
    entries.reserve(counts_.size());
    for (const auto& [k, c] : counts_) entries.push_back({c, k});
    heap_ = std::priority_queue<HeapEntry, std::vector<HeapEntry>, HeapLess>(HeapLess(), std::move(entries));
  }

  // Best pair still present, or false when none is left.
  bool best(uint64_t* key, uint64_t* count) {
    while (!heap_.empty()) {
      const HeapEntry e = heap_.top();
      auto it = counts_.find(e.key);
      if (it != counts_.end() && it->second == e.count) {
        *key = e.key;
        *count = e.count;
        return true;
      }
      heap_.pop();  // stale: the count moved since this entry was pushed
    }
    return false;
  }

  // Replaces (left, right) by `merged` in every word that holds it.
  void merge(Words& w, uint64_t key, uint32_t merged) {
    const uint32_t left = static_cast<uint32_t>(key >> 32), right = static_cast<uint32_t>(key);
    std::vector<uint32_t> where = std::move(where_[key]);
    where_.erase(key);
    counts_.erase(key);
    std::sort(where.begin(), where.end());
    where.erase(std::unique(where.begin(), where.end()), where.end());

    deltas_.clear();
    for (uint32_t wi : where) {
      uint32_t* s = &w.symbols[w.begin[wi]];
      const uint32_t n = w.len[wi];
      bool present = false;
      for (uint32_t i = 0; i + 1 < n && !present; ++i) present = s[i] == left && s[i + 1] == right;
      if (!present) continue;  // an older list entry; the word lost the pair since
      const int64_t c = static_cast<int64_t>(w.count[wi]);
      for (uint32_t i = 0; i + 1 < n; ++i) deltas_.push_back({pair_key(s[i], s[i + 1]), -c});
      uint32_t out = 0;
      for (uint32_t i = 0; i < n;) {
        if (i + 1 < n && s[i] == left && s[i + 1] == right) {
          s[out++] = merged;
          i += 2;
        } else {
          s[out++] = s[i++];
        }
      }
      w.len[wi] = out;
      for (uint32_t i = 0; i + 1 < out; ++i) {
        const uint64_t k = pair_key(s[i], s[i + 1]);
        deltas_.push_back({k, c});
        // Only pairs with the new id are new to this word; list it for them.
        if (s[i] == merged || s[i + 1] == merged) {
          std::vector<uint32_t>& list = where_[k];
          if (list.empty() || list.back() != wi) list.push_back(wi);
        }
      }
    }
    // Sum the deltas per pair (sorted, so the heap pushes are deterministic).
    std::sort(deltas_.begin(), deltas_.end(),
              [](const Delta& a, const Delta& b) { return a.key < b.key; });
    for (size_t i = 0; i < deltas_.size();) {
      const uint64_t k = deltas_[i].key;
      int64_t d = 0;
      for (; i < deltas_.size() && deltas_[i].key == k; ++i) d += deltas_[i].delta;
      if (d == 0 || k == key) continue;
      auto it = counts_.find(k);
      const int64_t now = (it == counts_.end() ? 0 : static_cast<int64_t>(it->second)) + d;
      if (now <= 0) {
        if (it != counts_.end()) counts_.erase(it);
        where_.erase(k);
        continue;
      }
      if (it == counts_.end()) counts_.emplace(k, static_cast<uint64_t>(now));
      else it->second = static_cast<uint64_t>(now);
      heap_.push({static_cast<uint64_t>(now), k});
    }
  }

 private:
  struct Delta {
    uint64_t key;
    int64_t delta;
  };
  std::unordered_map<uint64_t, uint64_t> counts_;
  std::unordered_map<uint64_t, std::vector<uint32_t>> where_;
  std::priority_queue<HeapEntry, std::vector<HeapEntry>, HeapLess> heap_;
  std::vector<Delta> deltas_;
};

Words make_words(const ChunkCounts& counts) {
  // Sorted by chunk bytes so the layout (and so everything after) does not
  // depend on the hash map's iteration order.
  std::vector<const std::pair<const std::string, uint64_t>*> order;
  order.reserve(counts.size());
  for (const auto& kv : counts) order.push_back(&kv);
  std::sort(order.begin(), order.end(), [](const auto* a, const auto* b) { return a->first < b->first; });
  Words w;
  w.begin.reserve(order.size());
  w.len.reserve(order.size());
  w.count.reserve(order.size());
  for (const auto* kv : order) {
    w.begin.push_back(static_cast<uint32_t>(w.symbols.size()));
    w.len.push_back(static_cast<uint32_t>(kv->first.size()));
    w.count.push_back(kv->second);
    for (unsigned char b : kv->first) w.symbols.push_back(kByteBase + b);
  }
  return w;
}

}  // namespace

TokenizerData train_bpe(const TextSource& source, uint32_t vocab_size, const BpeTrainOptions& options,
                        BpeTrainStats* stats) {
  if (vocab_size < kMergeBase) throw std::invalid_argument("train_bpe: vocab_size below 261");
  if (options.max_chunk_len == 0 || options.max_chunk_len > kMaxChunkLen) {
    throw std::invalid_argument("train_bpe: max_chunk_len must be 1..256");
  }
  BpeTrainStats st;
  const auto t0 = Clock::now();
  ChunkCounts counts;
  std::string doc;
  CountContext ctx{&doc, &counts, {}, 0};
  while ((options.max_input_bytes == 0 || st.bytes < options.max_input_bytes) && source(doc)) {
    ++st.documents;
    st.bytes += doc.size();
    pretokenize(doc.data(), doc.size(), options.max_chunk_len, count_chunk, &ctx);
  }
  st.chunks = ctx.chunks;
  st.unique_chunks = counts.size();
  Words words = make_words(counts);
  ChunkCounts().swap(counts);
  st.count_seconds = seconds_since(t0);
  if (options.verbose) {
    std::fprintf(stderr, "bpe: %llu docs, %llu bytes, %llu chunks (%llu distinct) in %.1fs\n",
                 (unsigned long long)st.documents, (unsigned long long)st.bytes, (unsigned long long)st.chunks,
                 (unsigned long long)st.unique_chunks, st.count_seconds);
  }

  const auto t1 = Clock::now();
  TokenizerData out;
  out.max_chunk_len = options.max_chunk_len;
  const uint32_t target = vocab_size - kMergeBase;
  out.merges.reserve(target);
  PairTable pairs(words);
  uint64_t key = 0, count = 0;
  while (out.merges.size() < target && pairs.best(&key, &count) && count >= options.min_pair_count) {
    const uint32_t merged = kMergeBase + static_cast<uint32_t>(out.merges.size());
    out.merges.emplace_back(static_cast<uint32_t>(key >> 32), static_cast<uint32_t>(key));
    pairs.merge(words, key, merged);
    if (options.verbose && out.merges.size() % 1000 == 0) {
      std::fprintf(stderr, "bpe: %zu merges, last count %llu, %.1fs\n", out.merges.size(),
                   (unsigned long long)count, seconds_since(t1));
    }
  }
  st.merge_seconds = seconds_since(t1);
  if (stats) *stats = st;
  return out;
}

TokenizerData train_bpe(const std::vector<std::string>& documents, uint32_t vocab_size,
                        const BpeTrainOptions& options, BpeTrainStats* stats) {
  size_t next = 0;
  TextSource source = [&](std::string& doc) {
    if (next >= documents.size()) return false;
    doc = documents[next++];
    return true;
  };
  return train_bpe(source, vocab_size, options, stats);
}

}  // namespace amxqa
