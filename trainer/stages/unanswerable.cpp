#include "stages/unanswerable.h"

#include <cctype>
#include <stdexcept>

#include "squad/squad_examples.h"
#include "stages/sft_data.h"
#include "stages/text_words.h"

namespace amxqa::train {
namespace {

// A word worth swapping: a number (any digit) or a capitalised word of 3+
// bytes; the question's first word is skipped (capitalised as a sentence start).
bool swappable(const std::string& w, bool first) {
  if (w.size() < 2) return false;
  if (is_number(w)) return true;
  return !first && w.size() >= 3 && std::isupper(static_cast<unsigned char>(w[0]));
}

// Lower-cased words of 4+ bytes: what a question and a paragraph share.
std::vector<std::string> content_words(const std::string& t) {
  std::vector<std::string> out;
  for (const auto& [b, e] : word_ranges(t)) {
    if (e - b < 4) continue;
    std::string w = t.substr(b, e - b);
    for (char& c : w) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    out.push_back(std::move(w));
  }
  return out;
}

size_t overlap(const std::vector<std::string>& qwords, const std::string& passage) {
  std::string lower = passage;
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  size_t n = 0;
  for (const std::string& w : qwords) n += has_word(lower, w);
  return n;
}

// With probability hard_frac the paragraph that shares the most words with the
// question (SQuAD 2.0's negatives look answerable: the words match, the fact
// is absent), else a random one. hard_frac 0 draws nothing extra, so the
// random choice is the same stream as before the option existed.
bool other_paragraph(const eval::SquadArticle& art, size_t p, const eval::SquadQa& qa, double hard_frac, Rng& rng,
                     Unanswerable* out) {
  if (art.paragraphs.size() < 2) return false;
  if (hard_frac > 0 && rng.uniform() < hard_frac) {
    const auto qwords = content_words(qa.question);
    size_t best = art.paragraphs.size(), best_overlap = 0;
    for (size_t o = 0; o < art.paragraphs.size(); ++o) {
      if (o == p || contains_any_answer(art.paragraphs[o].context, qa.answers)) continue;
      const size_t v = overlap(qwords, art.paragraphs[o].context);
      if (best == art.paragraphs.size() || v > best_overlap) best = o, best_overlap = v;
    }
    if (best == art.paragraphs.size()) return false;
    *out = {qa.question, art.paragraphs[best].context};
    return true;
  }
  for (int attempt = 0; attempt < 4; ++attempt) {
    size_t other = rng.below(art.paragraphs.size() - 1);
    if (other >= p) ++other;
    if (contains_any_answer(art.paragraphs[other].context, qa.answers)) continue;
    *out = {qa.question, art.paragraphs[other].context};
    return true;
  }
  return false;
}

bool answer_removed(const eval::SquadParagraph& para, const eval::SquadQa& qa, Unanswerable* out) {
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

bool entity_swap(const eval::SquadArticle& art, const eval::SquadParagraph& para, const eval::SquadQa& qa, Rng& rng,
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
  for (const eval::SquadParagraph& other : art.paragraphs) {
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


// The question negated after its first auxiliary verb ("What was built" ->
// "What was not built"): the paragraph states the positive fact, so the
// negated question asks for something it does not say.
bool negation(const eval::SquadParagraph& para, const eval::SquadQa& qa, Unanswerable* out) {
  static const char* const kAux[] = {"is", "was", "are", "were", "did", "does", "do", "can", "could",
                                     "has", "have", "had", "will", "would", "should"};
  for (const auto& [b, e] : word_ranges(qa.question)) {
    const std::string w = qa.question.substr(b, e - b);
    for (const char* aux : kAux) {
      if (w != aux) continue;
      if (has_word(qa.question, "not") || has_word(qa.question, "never")) return false;
      *out = {qa.question.substr(0, e) + " not" + qa.question.substr(e), para.context};
      return true;
    }
  }
  return false;
}

// A word of the question swapped for its antonym ("largest" -> "smallest"),
// when the paragraph does not contain the antonym: the question keeps every
// name the paragraph matches but asks for the opposite.
bool antonym_swap(const eval::SquadParagraph& para, const eval::SquadQa& qa, Unanswerable* out) {
  static const char* const kPairs[][2] = {
      {"first", "last"},       {"largest", "smallest"}, {"biggest", "smallest"}, {"most", "least"},
      {"highest", "lowest"},   {"earliest", "latest"},  {"before", "after"},     {"increase", "decrease"},
      {"increased", "decreased"}, {"longest", "shortest"}, {"oldest", "youngest"}, {"best", "worst"},
      {"north", "south"},      {"east", "west"},        {"more", "less"},        {"early", "late"},
      {"win", "lose"},         {"won", "lost"},         {"start", "end"},        {"began", "ended"},
      {"maximum", "minimum"},  {"major", "minor"},      {"public", "private"},   {"above", "below"},
      {"inside", "outside"},   {"top", "bottom"},       {"upper", "lower"},      {"positive", "negative"},
      {"allowed", "banned"},   {"strong", "weak"},      {"large", "small"},      {"high", "low"},
  };
  for (const auto& [b, e] : word_ranges(qa.question)) {
    const std::string w = qa.question.substr(b, e - b);
    for (const auto& pair : kPairs) {
      for (int side = 0; side < 2; ++side) {
        if (w != pair[side]) continue;
        const std::string to = pair[1 - side];
        if (has_word(para.context, to)) return false;
        *out = {qa.question.substr(0, b) + to + qa.question.substr(e), para.context};
        return true;
      }
    }
  }
  return false;
}

}  // namespace

const char* unanswerable_kind_name(UnanswerableKind k) {
  switch (k) {
    case UnanswerableKind::other_paragraph: return "other_paragraph";
    case UnanswerableKind::answer_removed: return "answer_removed";
    case UnanswerableKind::entity_swap: return "entity_swap";
    case UnanswerableKind::negation: return "negation";
    case UnanswerableKind::antonym_swap: return "antonym_swap";
  }
  return "?";
}

uint32_t parse_unanswerable_kinds(const std::string& names) {
  uint32_t bits = 0;
  size_t i = 0;
  while (i < names.size()) {
    while (i < names.size() && std::isspace(static_cast<unsigned char>(names[i]))) ++i;
    size_t j = i;
    while (j < names.size() && !std::isspace(static_cast<unsigned char>(names[j]))) ++j;
    if (j == i) break;
    const std::string name = names.substr(i, j - i);
    int k = 0;
    while (k < kUnanswerableKinds && name != unanswerable_kind_name(static_cast<UnanswerableKind>(k))) ++k;
    if (k == kUnanswerableKinds) throw std::runtime_error("unknown unanswerable kind '" + name + "'");
    bits |= 1u << k;
    i = j;
  }
  if (bits == 0) throw std::runtime_error("unanswerable_kinds names no kind");
  return bits;
}

bool make_unanswerable(const std::vector<eval::SquadArticle>& train, size_t a, size_t p, size_t q, UnanswerableKind kind,
                       double hard_frac, Rng& rng, Unanswerable* out) {
  const eval::SquadArticle& art = train[a];
  const eval::SquadParagraph& para = art.paragraphs[p];
  const eval::SquadQa& qa = para.qas[q];
  if (qa.answers.empty()) return false;
  switch (kind) {
    case UnanswerableKind::other_paragraph: return other_paragraph(art, p, qa, hard_frac, rng, out);
    case UnanswerableKind::answer_removed: return answer_removed(para, qa, out);
    case UnanswerableKind::entity_swap: return entity_swap(art, para, qa, rng, out);
    case UnanswerableKind::negation: return negation(para, qa, out);
    case UnanswerableKind::antonym_swap: return antonym_swap(para, qa, out);
  }
  return false;
}

}  // namespace amxqa::train
