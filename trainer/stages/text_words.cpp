#include "stages/text_words.h"

#include <cctype>

namespace amxqa::train {

bool is_word_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || (static_cast<unsigned char>(c) & 0x80);
}

bool is_number(const std::string& w) {
  for (char c : w)
    if (std::isdigit(static_cast<unsigned char>(c))) return true;
  return false;
}

std::vector<std::pair<size_t, size_t>> word_ranges(const std::string& t) {
  std::vector<std::pair<size_t, size_t>> out;
  for (size_t i = 0; i < t.size();) {
    if (!is_word_char(t[i])) {
      ++i;
      continue;
    }
    size_t b = i;
    while (i < t.size() && is_word_char(t[i])) ++i;
    out.emplace_back(b, i);
  }
  return out;
}

bool has_word(const std::string& t, const std::string& w) {
  for (size_t pos = t.find(w); pos != std::string::npos; pos = t.find(w, pos + 1)) {
    const bool left = pos == 0 || !is_word_char(t[pos - 1]);
    const bool right = pos + w.size() >= t.size() || !is_word_char(t[pos + w.size()]);
    if (left && right) return true;
  }
  return false;
}

size_t count_occurrences(const std::string& hay, const std::string& needle) {
  size_t n = 0;
  for (size_t p = hay.find(needle); p != std::string::npos; p = hay.find(needle, p + 1)) ++n;
  return n;
}

}  // namespace amxqa::train
