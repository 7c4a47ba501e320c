#include "stages/unanswerable.h"

#include <cctype>

#include "squad/squad_examples.h"
#include "stages/sft_data.h"

namespace amxqa::train {
namespace {

bool is_word_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || (static_cast<unsigned char>(c) & 0x80);
}

bool is_number(const std::string& w) {
  for (char c : w)
    if (std::isdigit(static_cast<unsigned char>(c))) return true;
  return false;
}

// A word worth swapping: a number (any digit) or a capitalised word of 3+
// bytes; the question's first word is skipped (capitalised as a sentence start).
bool swappable(const std::string& w, bool first) {
  if (w.size() < 2) return false;
  if (is_number(w)) return true;
  return !first && w.size() >= 3 && std::isupper(static_cast<unsigned char>(w[0]));
}

// Word byte ranges [b, e) of `t`: maximal runs of letters, digits and UTF-8.
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

// True if `w` occurs in `t` as a whole word.
bool has_word(const std::string& t, const std::string& w) {
  for (size_t pos = t.find(w); pos != std::string::npos; pos = t.find(w, pos + 1)) {
    const bool left = pos == 0 || !is_word_char(t[pos - 1]);
    const bool right = pos + w.size() >= t.size() || !is_word_char(t[pos + w.size()]);
    if (left && right) return true;
  }
  return false;
}

bool other_paragraph(const SquadArticle& art, size_t p, const SquadQa& qa, Rng& rng, Unanswerable* out) {
  if (art.paragraphs.size() < 2) return false;
  for (int attempt = 0; attempt < 4; ++attempt) {
    size_t other = rng.below(art.paragraphs.size() - 1);
    if (other >= p) ++other;
    if (contains_any_answer(art.paragraphs[other].context, qa.answers)) continue;
    *out = {qa.question, art.paragraphs[other].context};
    return true;
  }
  return false;
}

bool answer_removed(const SquadParagraph& para, const SquadQa& qa, Unanswerable* out) {
  std::string kept;
  size_t kept_sentences = 0;
  for (const auto& s : split_sentences(para.context)) {
    const std::string sent = para.context.substr(s.first, s.second - s.first);
    bool holds = false;
    for (size_t i = 0; i < qa.answers.size() && i < qa.answer_starts.size(); ++i) {
      if (qa.answer_starts[i] < 0) continue;  // contains_any_answer below still applies
      const size_t b = static_cast<size_t>(qa.answer_starts[i]), e = b + qa.answers[i].size();
      holds |= b < s.second && s.first < e;
    }
    if (holds || contains_any_answer(sent, qa.answers)) continue;
    kept += (kept.empty() ? "" : " ") + sent;
    ++kept_sentences;
  }
  if (kept_sentences < 2) return false;
  *out = {qa.question, kept};
  return true;
}

bool entity_swap(const SquadArticle& art, const SquadParagraph& para, const SquadQa& qa, Rng& rng,
                 Unanswerable* out) {
  const auto qwords = word_ranges(qa.question);
  std::vector<std::pair<size_t, size_t>> from;
  for (size_t i = 0; i < qwords.size(); ++i) {
    const std::string w = qa.question.substr(qwords[i].first, qwords[i].second - qwords[i].first);
    if (swappable(w, i == 0) && has_word(para.context, w)) from.push_back(qwords[i]);
  }
  if (from.empty()) return false;
  const auto [fb, fe] = from[rng.below(from.size())];
  const std::string old_word = qa.question.substr(fb, fe - fb);
  // Replacements of the same type from elsewhere in the article, absent from
  // this paragraph and from the question.
  std::vector<std::string> to;
  for (const SquadParagraph& other : art.paragraphs) {
    if (&other == &para) continue;
    for (const auto& [b, e] : word_ranges(other.context)) {
      const std::string w = other.context.substr(b, e - b);
      if (!swappable(w, b == 0) || is_number(w) != is_number(old_word) || w == old_word) continue;
      if (has_word(para.context, w) || has_word(qa.question, w)) continue;
      to.push_back(w);
      if (to.size() >= 64) break;
    }
  }
  if (to.empty()) return false;
  const std::string q = qa.question.substr(0, fb) + to[rng.below(to.size())] + qa.question.substr(fe);
  *out = {q, para.context};
  return true;
}

}  // namespace

const char* unanswerable_kind_name(UnanswerableKind k) {
  switch (k) {
    case UnanswerableKind::other_paragraph: return "other_paragraph";
    case UnanswerableKind::answer_removed: return "answer_removed";
    case UnanswerableKind::entity_swap: return "entity_swap";
  }
  return "?";
}

bool make_unanswerable(const std::vector<SquadArticle>& train, size_t a, size_t p, size_t q, UnanswerableKind kind,
                       Rng& rng, Unanswerable* out) {
  const SquadArticle& art = train[a];
  const SquadParagraph& para = art.paragraphs[p];
  const SquadQa& qa = para.qas[q];
  if (qa.answers.empty()) return false;
  switch (kind) {
    case UnanswerableKind::other_paragraph: return other_paragraph(art, p, qa, rng, out);
    case UnanswerableKind::answer_removed: return answer_removed(para, qa, out);
    case UnanswerableKind::entity_swap: return entity_swap(art, para, qa, rng, out);
  }
  return false;
}

}  // namespace amxqa::train
