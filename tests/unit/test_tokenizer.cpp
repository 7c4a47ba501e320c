// test_tokenizer.cpp — the byte-level BPE tokenizer of schemas/MODEL.md:
// the runtime pre-tokenizer and encoder, and the trainer's BPE training,
// checked against a naive reference encoder written here.
#include <doctest/doctest.h>
#include <zlib.h>

#include <chrono>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "format/model_spec.h"
#include "support/alloc_counter.h"
#include "tokenizer/bpe_train.h"
#include "format/owned_tokenizer.h"
#include "tokenizer/tokenizer.h"

using namespace amxqa;

namespace {

std::vector<std::string> chunks_of(const std::string& text, uint32_t max_chunk_len = 64) {
  struct Ctx {
    const std::string* text;
    std::vector<std::string> out;
  } ctx{&text, {}};
  pretokenize(text.data(), text.size(), max_chunk_len,
              [](void* user, size_t begin, size_t len) {
                Ctx& c = *static_cast<Ctx*>(user);
                c.out.push_back(c.text->substr(begin, len));
              },
              &ctx);
  return ctx.out;
}

using Chunks = std::vector<std::string>;

// Reference encoder: for each chunk, apply the merges in rank order, each one
// left to right over the whole chunk. Independent of merge_index and of the
// runtime's "lowest rank first" loop, which must give the same result.
std::vector<uint32_t> reference_encode(const TokenizerData& data, const std::string& text) {
  std::vector<uint32_t> out;
  for (const std::string& chunk : chunks_of(text, data.max_chunk_len)) {
    std::vector<uint32_t> s;
    for (unsigned char b : chunk) s.push_back(kByteBase + b);
    for (uint32_t r = 0; r < data.merges.size(); ++r) {
      std::vector<uint32_t> next;
      for (size_t i = 0; i < s.size();) {
        if (i + 1 < s.size() && s[i] == data.merges[r].first && s[i + 1] == data.merges[r].second) {
          next.push_back(kMergeBase + r);
          i += 2;
        } else {
          next.push_back(s[i++]);
        }
      }
      s.swap(next);
    }
    out.insert(out.end(), s.begin(), s.end());
  }
  return out;
}

// A deterministic small English-like corpus with digits, punctuation,
// newlines and some UTF-8.
std::vector<std::string> small_corpus(uint32_t seed, size_t docs) {
  static const char* const kWords[] = {"the", "of", "and", "river", "rivers", "town", "towns", "north",
                                       "northern", "water", "king", "kingdom", "café", "naïve", "1887",
                                       "in", "was", "were", "a", "an", "is", "it", "its", "there", "their"};
  static const char* const kSyllables[] = {"ka", "ro", "min", "tal", "es", "ber", "un", "dor", "li", "Sa", "ve", "qu"};
  static const char* const kSeps[] = {" ", " ", " ", " ", ", ", ". ", "\n", "  ", " (", ") ", "\n\n", "; "};
  std::mt19937 rng(seed);
  std::vector<std::string> out;
  for (size_t d = 0; d < docs; ++d) {
    std::string doc;
    const size_t n = 20 + rng() % 60;
    for (size_t i = 0; i < n; ++i) {
      if (rng() % 3 == 0) {  // an invented word of 1-3 syllables, for a long tail of merges
        for (uint32_t k = 0, m = 1 + rng() % 3; k < m; ++k) doc += kSyllables[rng() % (sizeof(kSyllables) / sizeof(kSyllables[0]))];
      } else {
        doc += kWords[rng() % (sizeof(kWords) / sizeof(kWords[0]))];
      }
      doc += kSeps[rng() % (sizeof(kSeps) / sizeof(kSeps[0]))];
    }
    out.push_back(doc);
  }
  return out;
}

std::string random_bytes(std::mt19937& rng, size_t n) {
  std::string s(n, '\0');
  for (char& c : s) {
    // Favour bytes that pre-tokenize interestingly: letters, spaces, NULs, high bytes.
    const uint32_t r = rng() % 8;
    if (r == 0) c = ' ';
    else if (r == 1) c = '\0';
    else if (r == 2) c = static_cast<char>(0x80 + rng() % 128);
    else if (r <= 5) c = static_cast<char>('a' + rng() % 4);
    else c = static_cast<char>(rng() % 256);
  }
  return s;
}

std::string decode_all(const TokenizerView& tok, const std::vector<uint32_t>& ids) {
  return decode_ids(tok, ids.data(), ids.size());
}

}  // namespace

TEST_SUITE("unit") {
  TEST_CASE("pretokenize: spaces attach to the following word, digits and punctuation stay single") {
    CHECK(chunks_of("Hello world") == Chunks{"Hello", " world"});
    CHECK(chunks_of("in 1887, x") == Chunks{"in", " 1", "8", "8", "7", ",", " x"});
    CHECK(chunks_of("Hi, there!") == Chunks{"Hi", ",", " there", "!"});
    CHECK(chunks_of(" (x)") == Chunks{" (", "x", ")"});
    CHECK(chunks_of("a-b") == Chunks{"a", "-", "b"});
    CHECK(chunks_of("x ") == Chunks{"x", " "});
    CHECK(chunks_of("") == Chunks{});
  }

  TEST_CASE("pretokenize: white space runs leave a final space for the next word") {
    CHECK(chunks_of("a  b") == Chunks{"a", " ", " b"});
    CHECK(chunks_of("a\n\nb") == Chunks{"a", "\n\n", "b"});
    CHECK(chunks_of("a\n\n b") == Chunks{"a", "\n\n", " b"});
    CHECK(chunks_of("a \n") == Chunks{"a", " \n"});
    CHECK(chunks_of("\t x") == Chunks{"\t", " x"});
    CHECK(chunks_of("a   ") == Chunks{"a", "   "});
    CHECK(chunks_of("a \t 7") == Chunks{"a", " \t", " 7"});
    CHECK(chunks_of("\r\n\r\n") == Chunks{"\r\n\r\n"});
  }

  TEST_CASE("pretokenize: bytes >= 0x80 are letters, NUL is punctuation") {
    CHECK(chunks_of("caf\xc3\xa9 ok") == Chunks{"caf\xc3\xa9", " ok"});
    CHECK(chunks_of(" \xff\xfe") == Chunks{" \xff\xfe"});
    CHECK(chunks_of(std::string("a\0b", 3)) == Chunks{"a", std::string(1, '\0'), "b"});
  }

  TEST_CASE("pretokenize: long chunks are cut into max_chunk_len pieces") {
    CHECK(chunks_of(std::string(150, 'a'), 64) ==
          Chunks{std::string(64, 'a'), std::string(64, 'a'), std::string(22, 'a')});
    CHECK(chunks_of(" " + std::string(70, 'b'), 64) == Chunks{" " + std::string(63, 'b'), std::string(7, 'b')});
    CHECK(chunks_of(std::string(66, ' ') + "x", 64) == Chunks{std::string(64, ' '), " ", " x"});
    // A zero or oversized limit is clamped to kMaxChunkLen, never trusted.
    CHECK(chunks_of(std::string(300, 'a'), 0) == Chunks{std::string(256, 'a'), std::string(44, 'a')});
    CHECK(chunks_of(std::string(300, 'a'), 100000) == Chunks{std::string(256, 'a'), std::string(44, 'a')});
  }

  TEST_CASE("pieces: specials, single bytes, and merges as the concatenation of their parts") {
    TokenizerData data;
    data.merges = {{kByteBase + 'a', kByteBase + 'b'}, {kMergeBase + 0, kByteBase + 'c'}};
    const std::vector<std::string> p = data.pieces(kMergeBase + 3);
    REQUIRE(p.size() == kMergeBase + 3);
    CHECK(p[kPad] == "<|pad|>");
    CHECK(p[kBos] == "<|bos|>");
    CHECK(p[kEot] == "<|eot|>");
    CHECK(p[kAns] == "<|ans|>");
    CHECK(p[kAbstain] == "<|abstain|>");
    CHECK(p[kByteBase] == std::string(1, '\0'));
    CHECK(p[kByteBase + 0xff] == "\xff");
    CHECK(p[kMergeBase] == "ab");
    CHECK(p[kMergeBase + 1] == "abc");
    CHECK(p[kMergeBase + 2].empty());  // beyond the trained merges

    TokenizerData bad;
    bad.merges = {{kMergeBase + 5, kByteBase}};
    CHECK_THROWS(bad.pieces(kMergeBase + 10));
  }

  TEST_CASE("encode: bytes only, round trip of random bytes including NULs and invalid UTF-8") {
    const OwnedTokenizer t = make_owned_tokenizer(TokenizerData{}, kMergeBase);
    std::mt19937 rng(7);
    for (int iter = 0; iter < 200; ++iter) {
      const std::string s = random_bytes(rng, rng() % 600);
      const std::vector<uint32_t> ids = encode_text(t.view, s);
      REQUIRE(ids.size() == s.size());
      for (size_t i = 0; i < s.size(); ++i) CHECK(ids[i] == kByteBase + static_cast<uint8_t>(s[i]));
      CHECK(decode_all(t.view, ids) == s);
    }
  }

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

  TEST_CASE("encode: a cap smaller than needed returns the full count and writes only cap") {
    const TokenizerData data = train_bpe(small_corpus(1, 100), kMergeBase + 100);
    const OwnedTokenizer t = make_owned_tokenizer(data, kMergeBase + 100);
    const std::string s = "the river was in the northern kingdom, 1887.";
    const std::vector<uint32_t> full = encode_text(t.view, s);
    REQUIRE(full.size() > 6);
    std::vector<uint32_t> ids(full.size(), 0xDEADBEEF), offs(full.size(), 0xDEADBEEF);
    const size_t n = encode(t.view, s.data(), s.size(), ids.data(), offs.data(), 4);
    CHECK(n == full.size());
    for (size_t i = 0; i < 4; ++i) CHECK(ids[i] == full[i]);
    for (size_t i = 4; i < ids.size(); ++i) {
      CHECK(ids[i] == 0xDEADBEEF);
      CHECK(offs[i] == 0xDEADBEEF);
    }
    CHECK(encode(t.view, s.data(), s.size(), nullptr, nullptr, 0) == full.size());
    CHECK(encode(t.view, nullptr, 0, ids.data(), nullptr, ids.size()) == 0);
    size_t len = 99;
    CHECK(token_bytes(t.view, t.view.vocab_size, &len) == nullptr);
    CHECK(len == 0);
  }
}

TEST_SUITE("unit") {
  TEST_CASE("encode: no allocation, deterministic") {
    const TokenizerData data = train_bpe(small_corpus(1, 100), kMergeBase + 200);
    const OwnedTokenizer t = make_owned_tokenizer(data, kMergeBase + 200);
    const std::string s = small_corpus(9, 1)[0] + std::string(500, 'a') + std::string(300, ' ') + "\xff\x80";
    std::vector<uint32_t> a(s.size()), b(s.size()), offs(s.size());
    size_t na = 0, nb = 0;
    {
      test::AllocScope scope;
      na = encode(t.view, s.data(), s.size(), a.data(), offs.data(), a.size());
      nb = encode(t.view, s.data(), s.size(), b.data(), nullptr, b.size());
      size_t len = 0;
      CHECK(token_bytes(t.view, a[0], &len) != nullptr);
      AMXQA_CHECK_NO_ALLOCATIONS(scope);
    }
    CHECK(na == nb);
    CHECK(a == b);
  }

  TEST_CASE("encode: a corrupt merge_index never reads out of bounds") {
    const TokenizerData data = train_bpe(small_corpus(1, 100), kMergeBase + 100);
    OwnedTokenizer t = make_owned_tokenizer(data, kMergeBase + 100);
    for (uint32_t& r : t.merge_index) r = UINT32_MAX - (r & 7);
    std::mt19937 rng(3);
    for (int iter = 0; iter < 50; ++iter) {
      const std::string s = random_bytes(rng, rng() % 300);
      const std::vector<uint32_t> ids = encode_text(t.view, s);
      CHECK(ids.size() == s.size());  // no merge is ever found
      CHECK(decode_all(t.view, ids) == s);
    }
  }
}

// Trains on the first 20 MB of the SQuAD contexts (when present) and reports
// training time and encoding speed. Run with: test_tokenizer --test-suite=slow
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
