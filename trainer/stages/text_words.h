// text_words.h — the word-level text helpers that the made-up training
// questions share (stages/unanswerable.cpp, stages/cloze.cpp): words as runs
// of letters, digits and UTF-8 bytes, and whole-word search.
#pragma once
#include <string>
#include <utility>
#include <vector>

namespace amxqa::train {

// A letter, a digit or any byte of a multi-byte UTF-8 character.
bool is_word_char(char c);
// True if `w` holds a digit.
bool is_number(const std::string& w);
// Word byte ranges [b, e) of `t`: maximal runs of is_word_char.
std::vector<std::pair<size_t, size_t>> word_ranges(const std::string& t);
// True if `w` occurs in `t` as a whole word (no word character on either side).
bool has_word(const std::string& t, const std::string& w);
// Occurrences of `needle` in `hay`, overlapping ones included.
size_t count_occurrences(const std::string& hay, const std::string& needle);

}  // namespace amxqa::train
