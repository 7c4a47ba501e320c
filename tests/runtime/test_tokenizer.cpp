// test_tokenizer.cpp — the runtime's byte-level BPE tokenizer of
// schemas/MODEL.md: the pre-tokenizer and the encoder, checked against a
// naive reference encoder (tests/support/tokenizer_reference.h) on the
// reference models' merges. BPE training is tested in
// tests/trainer/test_bpe_train.cpp.
#include <doctest/doctest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "format/model_spec.h"
#include "format/owned_tokenizer.h"
#include "format/random_model.h"
#include "support/alloc_counter.h"
#include "support/tokenizer_reference.h"
#include "tokenizer/tokenizer.h"

using namespace amxqa;
using namespace amxqa::test;

using Chunks = std::vector<std::string>;

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

  TEST_CASE("encode: agrees with the reference encoder on the reference tokenizer's merges, and round-trips") {
    const uint32_t vocab = kMergeBase + 300;
    const TokenizerData data = make_reference_tokenizer(vocab);
    REQUIRE(data.merges.size() == 300);
    const OwnedTokenizer t = make_owned_tokenizer(data, vocab);

    // Every merge is found by binary search at its own rank.
    for (uint32_t r = 0; r < data.merges.size(); ++r) {
      CHECK(merge_rank(t.view, data.merges[r].first, data.merges[r].second) == r);
    }
    CHECK(merge_rank(t.view, kByteBase + 'q', kByteBase + 'z') == UINT32_MAX);

    // Its fixed English merges make "the" one token.
    CHECK(encode_text(t.view, "the").size() == 1);

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
  }

  TEST_CASE("encode: a cap smaller than needed returns the full count and writes only cap") {
    const TokenizerData data = make_reference_tokenizer(kMergeBase + 100);
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

  TEST_CASE("encode: no allocation, deterministic") {
    const TokenizerData data = make_reference_tokenizer(kMergeBase + 200);
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
    const TokenizerData data = make_reference_tokenizer(kMergeBase + 100);
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
