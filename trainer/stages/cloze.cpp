#include "stages/cloze.h"

#include <algorithm>
#include <cctype>
#include <cstring>

#include "stages/sft_data.h"
#include "stages/text_words.h"

namespace amxqa::train {
namespace {

constexpr size_t kSide = 12;        // words of the clause kept on each side of the gap, at most
constexpr size_t kMinSide = 3;      // kept on the left before a clause boundary may cut
constexpr size_t kMinWords = 5;     // kept in all before a clause boundary may cut on the right
constexpr size_t kMaxRun = 6;       // words in an answer, at most
constexpr double kDrop = 0.1;       // share of the question's other lower-case words dropped
constexpr size_t kPoolSize = 2048;  // names (and numbers) remembered from earlier paragraphs

// One whitespace-separated word of a sentence, its punctuation stripped.
struct Word {
  size_t b = 0, e = 0;      // bytes of the stripped word in the paragraph
  bool entity = false;      // capitalised or holding a digit
  bool clause_end = false;  // followed by , ; : ( ) or the sentence's end
};

bool is_clause_mark(char c) { return std::strchr(",;:()[]", c) != nullptr; }

std::vector<Word> sentence_words(const std::string& p, size_t sb, size_t se) {
  std::vector<Word> out;
  size_t i = sb;
  while (i < se) {
    while (i < se && std::isspace(static_cast<unsigned char>(p[i]))) ++i;
    const size_t raw_b = i;
    while (i < se && !std::isspace(static_cast<unsigned char>(p[i]))) ++i;
    Word w;
    w.b = raw_b;
    w.e = i;
    while (w.b < w.e && !is_word_char(p[w.b])) ++w.b;
    while (w.e > w.b && !is_word_char(p[w.e - 1])) --w.e;
    if (w.b == w.e) continue;
    for (size_t k = w.e; k < i; ++k) w.clause_end |= is_clause_mark(p[k]) || p[k] == '.' || p[k] == '!' || p[k] == '?';
    if (i + 1 < se && is_clause_mark(p[i + 1])) w.clause_end = true;  // "word (note)" and "word ;"
    const std::string text = p.substr(w.b, w.e - w.b);
    w.entity = is_number(text) || std::isupper(static_cast<unsigned char>(text[0]));
    out.push_back(w);
  }
  if (!out.empty()) out.back().clause_end = true;
  return out;
}

bool is_connector(const std::string& w) {
  static const char* const kJoin[] = {"of", "the", "de", "du", "da", "del", "von", "van", "la", "le"};
  for (const char* j : kJoin)
    if (w == j) return true;
  return false;
}

bool is_month(const std::string& w) {
  static const char* const kMonths[] = {"January", "February", "March",     "April",   "May",      "June",
                                        "July",    "August",   "September", "October", "November", "December"};
  for (const char* m : kMonths)
    if (w == m) return true;
  return false;
}

bool is_year(const std::string& w) {
  if (w.size() != 4 || !std::all_of(w.begin(), w.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }))
    return false;
  const int y = std::stoi(w);
  return y >= 1000 && y <= 2099;
}

bool is_title(const std::string& w) {
  static const char* const kTitles[] = {"King", "Queen", "President", "Sir", "Saint", "St", "Pope", "Lord",
                                        "Emperor", "General", "Prince", "Princess", "Dr", "Duke", "Bishop"};
  for (const char* t : kTitles)
    if (w == t) return true;
  return false;
}

// Maximal runs [i, j] of entity words (a connector between two of them
// included), never across a clause boundary; a sentence's first word starts a
// run only when it holds a digit (capitalised as a sentence start). Runs of
// more than kMaxRun words (titles, lists) are left out, not cut.
std::vector<std::pair<size_t, size_t>> entity_runs(const std::string& p, const std::vector<Word>& w) {
  std::vector<std::pair<size_t, size_t>> out;
  auto text = [&](size_t k) { return p.substr(w[k].b, w[k].e - w[k].b); };
  for (size_t i = 0; i < w.size();) {
    if (!w[i].entity || (i == 0 && !is_number(text(0)))) {
      ++i;
      continue;
    }
    size_t j = i;
    while (!w[j].clause_end && j + 1 < w.size()) {
      if (w[j + 1].entity) {
        ++j;
      } else if (j + 2 < w.size() && is_connector(text(j + 1)) && !w[j + 1].clause_end && w[j + 2].entity) {
        j += 2;
      } else {
        break;
      }
    }
    if (j - i + 1 <= kMaxRun) out.emplace_back(i, j);
    i = j + 1;
  }
  return out;
}

// The end of run [i, j] without a possessive "'s" ("Bell's theorem" asks for Bell).
size_t run_end(const std::string& p, const Word& last) {
  const size_t e = last.e;
  if (e >= last.b + 3 && p.compare(e - 2, 2, "'s") == 0) return e - 2;
  if (e >= last.b + 5 && p.compare(e - 4, 4, "\xE2\x80\x99s") == 0) return e - 4;  // ’s
  return e;
}

// A sentence's first word is capitalised as a start: lower-cased in the
// question when it is a common opener or the paragraph also has it in lower
// case ("In 1935, ..." -> "When in ..."), kept when it looks like a name.
std::string question_word(const std::string& p, const std::string& t, bool first) {
  if (!first || t.empty() || !std::isupper(static_cast<unsigned char>(t[0]))) return t;
  static const char* const kOpeners[] = {"The", "A", "An", "In", "On", "At", "By", "For", "From", "With", "As",
                                         "After", "Before", "During", "Since", "When", "While", "It", "He", "She",
                                         "They", "This", "These", "Those", "His", "Her", "Its", "Their", "There",
                                         "Some", "Many", "Most", "So", "Following", "Between", "Although", "However"};
  std::string lower = t;
  lower[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(t[0])));
  for (const char* o : kOpeners)
    if (t == o) return lower;
  return has_word(p, lower) ? lower : t;
}

// A year or a decade, or a number of at most 4 digits after a preposition of
// time ("in 911", "since 1200"): the gap asks When.
bool is_time(const std::string& t, const std::string& before) {
  if (is_year(t) || (t.size() == 5 && t.back() == 's' && is_year(t.substr(0, 4)))) return true;  // 1930s
  static const char* const kPreps[] = {"in", "since", "until", "after", "before", "during", "by", "from"};
  if (t.empty() || t.size() > 4 || !std::all_of(t.begin(), t.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }))
    return false;
  for (const char* prep : kPreps)
    if (before == prep) return true;
  return false;
}

std::string wh_word(const std::string& p, const std::vector<Word>& w, size_t i, size_t j) {
  auto text = [&](size_t k) { return p.substr(w[k].b, w[k].e - w[k].b); };
  const std::string before = i > 0 ? text(i - 1) : "";
  bool all_numbers = true;
  for (size_t k = i; k <= j; ++k) {
    const std::string t = text(k);
    if (is_month(t) || is_time(t, k == i ? before : "")) return "When";
    all_numbers &= is_number(t);
  }
  if (all_numbers) return "How many";
  const bool after_by = before == "by";
  if (after_by || is_title(text(i))) return "Who";
  return "What";
}

// One name inside the other ("Einstein", "Professor Einstein"): the same
// thing, so no swap.
bool overlapping(const std::string& a, const std::string& b) {
  return a.find(b) != std::string::npos || b.find(a) != std::string::npos;
}

// `q` with the whole word `from` (its first occurrence) replaced by `to`.
bool replace_word(std::string& q, const std::string& from, const std::string& to) {
  for (size_t at = q.find(from); at != std::string::npos; at = q.find(from, at + 1)) {
    const bool left = at == 0 || !is_word_char(q[at - 1]);
    const bool right = at + from.size() >= q.size() || !is_word_char(q[at + from.size()]);
    if (left && right) {
      q.replace(at, from.size(), to);
      return true;
    }
  }
  return false;
}

}  // namespace

bool ClozeMaker::question(const std::string& p, Rng& rng, Cloze* out) {
  struct Candidate {
    size_t sentence, i, j;
  };
  const auto sents = split_sentences(p);
  std::vector<std::vector<Word>> words;
  std::vector<Candidate> cands;
  paragraph_entities_.clear();
  for (size_t s = 0; s < sents.size(); ++s) {
    words.push_back(sentence_words(p, sents[s].first, sents[s].second));
    const auto& w = words.back();
    for (const auto& [i, j] : entity_runs(p, w)) {
      const std::string ans = p.substr(w[i].b, run_end(p, w[j]) - w[i].b);
      paragraph_entities_.push_back(ans);
      if (ans.size() >= 2 && w.size() >= j - i + 1 + 2 * kMinSide && count_occurrences(p, ans) == 1)
        cands.push_back({s, i, j});
    }
  }
  if (cands.empty()) return false;
  const Candidate c = cands[rng.below(cands.size())];
  const auto& w = words[c.sentence];
  // The clause around the gap: kSide words each side at most, cut at a clause
  // boundary once enough are kept (an answer before a comma ends the question).
  size_t left = c.i, right = c.j + 1;
  for (size_t n = 0; left > 0 && n < kSide; ++n) {
    if (n >= kMinSide && w[left - 1].clause_end) break;
    --left;
  }
  for (size_t n = 0; right < w.size() && n < kSide; ++n) {
    if (n + (c.i - left) >= kMinWords && w[right - 1].clause_end) break;
    ++right;
  }
  std::vector<size_t> kept;
  for (size_t k = left; k < right; ++k)
    if (k < c.i || k > c.j) kept.push_back(k);
  if (kept.size() < kMinSide) return false;
  std::vector<size_t> noisy;
  for (size_t k : kept) {
    const bool beside_gap = k + 1 == c.i || k == c.j + 1;
    if (!w[k].entity && !beside_gap && rng.uniform() < kDrop) continue;
    noisy.push_back(k);
  }
  if (noisy.size() >= kMinSide) kept.swap(noisy);

  out->question = wh_word(p, w, c.i, c.j);
  for (size_t k : kept) {
    out->question += " " + question_word(p, p.substr(w[k].b, w[k].e - w[k].b), k == 0);
  }
  out->question += "?";
  out->answer_begin = w[c.i].b;
  out->answer_end = run_end(p, w[c.j]);
  out->sentence_begin = sents[c.sentence].first;
  out->sentence_end = sents[c.sentence].second;
  out->question_entities.clear();
  for (const auto& [i, j] : entity_runs(p, w)) {
    if (i == c.i || i < left || j >= right) continue;
    bool whole = true;  // every word of the run survived the noise
    for (size_t k = i; k <= j; ++k) whole &= std::find(kept.begin(), kept.end(), k) != kept.end();
    if (whole) out->question_entities.push_back(p.substr(w[i].b, run_end(p, w[j]) - w[i].b));
  }
  remember(paragraph_entities_, rng);
  return true;
}

bool ClozeMaker::twin(const std::string& p, const Cloze& c, Rng& rng, ClozeTwin* out) {
  const std::string answer = p.substr(c.answer_begin, c.answer_end - c.answer_begin);
  std::vector<std::string> from = c.question_entities;
  shuffle(from, rng);
  for (const std::string& old : from) {
    const int kind = is_number(old) ? 1 : 0;
    // The paragraph's own names (numbers) that the question lacks: the
    // passage matches every word of the twin.
    std::vector<std::string> to;
    for (const std::string& e : paragraph_entities_)
      if ((is_number(e) ? 1 : 0) == kind && !overlapping(e, old) && e != answer && !has_word(c.question, e))
        to.push_back(e);
    if (to.empty())  // one from an earlier paragraph (remember() also holds this one's: skipped)
      for (int tries = 0; tries < 8 && !pool_[kind].empty(); ++tries) {
        const std::string& e = pool_[kind][rng.below(pool_[kind].size())];
        if (!overlapping(e, old) && !has_word(p, e) && !has_word(c.question, e)) {
          to.push_back(e);
          break;
        }
      }
    if (to.empty()) continue;
    std::string q = c.question;
    if (!replace_word(q, old, to[rng.below(to.size())])) continue;
    *out = {q, p};
    return true;
  }
  // The answer's sentence removed: the rest of the paragraph stays.
  std::string kept;
  size_t n = 0;
  for (const auto& [b, e] : split_sentences(p)) {
    if (b == c.sentence_begin) continue;
    kept += (kept.empty() ? "" : " ") + p.substr(b, e - b);
    ++n;
  }
  if (n < 2 || kept.find(answer) != std::string::npos) return false;
  *out = {c.question, kept};
  return true;
}

void ClozeMaker::remember(const std::vector<std::string>& entities, Rng& rng) {
  for (const std::string& e : entities) {
    auto& pool = pool_[is_number(e) ? 1 : 0];
    if (pool.size() < kPoolSize) pool.push_back(e);
    else pool[rng.below(kPoolSize)] = e;
  }
}

}  // namespace amxqa::train
