// tokenizer_reference.cpp — see tokenizer_reference.h.
#include "support/tokenizer_reference.h"

#include "format/owned_tokenizer.h"

namespace amxqa::test {

std::vector<std::string> chunks_of(const std::string& text, uint32_t max_chunk_len) {
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

}  // namespace amxqa::test
