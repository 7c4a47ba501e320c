// test_bpe_train.cpp — the trainer's BPE training (trainer/tokenizer/bpe_train.h):
// the runtime encoder on trained merges agrees with the naive reference
// encoder (tests/support/tokenizer_reference.h) and compresses; training is
// deterministic with the documented tie rule; and a slow run on 20 MB of
// SQuAD contexts.
#include <doctest/doctest.h>
#include <zlib.h>

#include <chrono>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "format/model_spec.h"
#include "format/owned_tokenizer.h"
#include "support/tokenizer_reference.h"
#include "tokenizer/bpe_train.h"
#include "tokenizer/tokenizer.h"

using namespace amxqa;
using namespace amxqa::test;

TEST_SUITE("unit") {
  TEST_CASE("train_bpe: the runtime encoder agrees with the reference encoder, and round-trips") {
    const std::vector<std::string> corpus = small_corpus(1, 300);
    const uint32_t vocab = kMergeBase + 300;
    const TokenizerData data = train_bpe(corpus, vocab);
    REQUIRE(data.merges.size() > 100);
    CHECK(data.merges.size() <= 300);
    const OwnedTokenizer t = make_owned_tokenizer(data, vocab);

    // Every merge is found by binary search at its own rank.
    for (uint32_t r = 0; r < data.merges.size(); ++r) {
      CHECK(merge_rank(t.view, data.merges[r].first, data.merges[r].second) == r);
    }
    CHECK(merge_rank(t.view, kByteBase + 'q', kByteBase + 'z') == UINT32_MAX);

    // Frequent words become single tokens.
    CHECK(encode_text(t.view, " river").size() == 1);

    // Held-out text from the same distribution, plus random bytes.
    std::mt19937 rng(11);
    std::vector<std::string> texts = small_corpus(2, 30);
    for (int i = 0; i < 50; ++i) texts.push_back(random_bytes(rng, rng() % 400));
    for (const std::string& s : texts) {
      std::vector<uint32_t> offsets;
      const std::vector<uint32_t> ids = encode_text(t.view, s, &offsets);
      CHECK(ids == reference_encode(data, s));
      CHECK(decode_all(t.view, ids) == s);
      // offsets[i] is where token i's bytes start.
      size_t pos = 0;
      for (size_t i = 0; i < ids.size(); ++i) {
        REQUIRE(offsets[i] == pos);
        size_t len = 0;
        REQUIRE(token_bytes(t.view, ids[i], &len) != nullptr);
        pos += len;
      }
      CHECK(pos == s.size());
    }
    // Compression on held-out text: well under one token per byte.
    const std::string held = small_corpus(3, 1)[0];
    CHECK(encode_text(t.view, held).size() * 3 < held.size());
  }

  TEST_CASE("train_bpe: deterministic, and ties go to the highest count then the lowest pair") {
    const std::vector<std::string> corpus = small_corpus(5, 200);
    const TokenizerData a = train_bpe(corpus, kMergeBase + 200);
    const TokenizerData b = train_bpe(corpus, kMergeBase + 200);
    CHECK(a.merges == b.merges);
    CHECK(a.max_chunk_len == 64);

    // "ab" x3 and "cd" x3 tie; (a,b) has the lower ids. Then "xy" x2.
    const TokenizerData t = train_bpe(std::vector<std::string>{"cd.ab.xy.cd.ab.xy.cd.ab"}, kMergeBase + 10);
    REQUIRE(t.merges.size() >= 3);
    CHECK(t.merges[0] == std::make_pair(uint32_t(kByteBase + 'a'), uint32_t(kByteBase + 'b')));
    CHECK(t.merges[1] == std::make_pair(uint32_t(kByteBase + 'c'), uint32_t(kByteBase + 'd')));
    // Pairs seen once are not merged (min_pair_count 2); the corpus runs out first.
    CHECK(t.merges.size() < 10);
  }
}

// Trains on the first 20 MB of the SQuAD contexts (when present) and reports
// training time and encoding speed. Run with: test_bpe_train --test-suite=slow
TEST_SUITE("slow") {
  TEST_CASE("train_bpe: 16384 ids on 20 MB of SQuAD contexts") {
    const char* path = "/work/shared/data/corpus/squad-train-contexts.txt.gz";
    gzFile gz = gzopen(path, "rb");
    if (!gz) {
      MESSAGE("corpus not found, skipped: ", path);
      return;
    }
    // Paragraphs are separated by blank lines.
    std::vector<std::string> docs;
    std::string cur;
    size_t total = 0;
    char line[1 << 16];
    while (total < (20u << 20) && gzgets(gz, line, sizeof line)) {
      if (line[0] == '\n' || line[0] == '\0') {
        if (!cur.empty()) docs.push_back(std::move(cur));
        cur.clear();
        continue;
      }
      cur += line;
      total += std::strlen(line);
    }
    if (!cur.empty()) docs.push_back(std::move(cur));
    gzclose(gz);
    REQUIRE(docs.size() > 100);

    const uint32_t vocab = 16384;
    BpeTrainStats stats;
    const TokenizerData data = train_bpe(docs, vocab, BpeTrainOptions{}, &stats);
    CHECK(data.merges.size() == vocab - kMergeBase);
    MESSAGE("trained ", data.merges.size(), " merges on ", stats.bytes, " bytes (", stats.documents,
            " docs, ", stats.unique_chunks, " distinct chunks): count ", stats.count_seconds, " s, merge ",
            stats.merge_seconds, " s");

    const OwnedTokenizer t = make_owned_tokenizer(data, vocab);
    std::vector<uint32_t> ids(1 << 20);
    size_t bytes = 0, tokens = 0;
    const auto t0 = std::chrono::steady_clock::now();
    for (const std::string& d : docs) {
      if (d.size() > ids.size()) continue;
      tokens += encode(t.view, d.data(), d.size(), ids.data(), nullptr, ids.size());
      bytes += d.size();
    }
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    MESSAGE("encoded ", bytes, " bytes into ", tokens, " tokens in ", secs, " s: ", bytes / secs / 1e6,
            " MB/s, ", double(bytes) / tokens, " bytes/token");
    CHECK(double(bytes) / tokens > 3.5);
    for (size_t i = 0; i < docs.size(); i += 997) CHECK(decode_all(t.view, encode_text(t.view, docs[i])) == docs[i]);
  }
}
