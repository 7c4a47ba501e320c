#include "squad/squad_examples.h"

#include <algorithm>
#include <cctype>
#include <set>

#include "data/encode_text.h"
#include "data/rng.h"
#include "format/model_spec.h"

namespace amxqa::train {
namespace {

// The separator between the question and the passage (MODEL.md "Prompt format").
constexpr char kSep[] = "\n\n";

bool is_ws(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

std::string lower(const std::string& s) {
  std::string o(s);
  for (char& c : o) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return o;
}

const std::set<std::string>& stop_words() {
  static const std::set<std::string> w = {"the", "and", "what", "which", "who", "whom", "whose", "when",
                                          "where", "why", "how", "was", "were", "are", "is", "did", "does",
                                          "for", "from", "with", "that", "this", "these", "those", "of",
                                          "in", "on", "at", "by", "its", "his", "her", "their", "has",
                                          "have", "had", "not", "one", "into", "than", "then", "many", "much"};
  return w;
}

std::vector<std::string> content_words(const std::string& q) {
  std::vector<std::string> out;
  std::string cur;
  auto flush = [&] {
    if (cur.size() >= 3 && !stop_words().count(cur) &&
        std::find(out.begin(), out.end(), cur) == out.end())
      out.push_back(cur);
    cur.clear();
  };
  for (char c : q) {
    if (std::isalnum(static_cast<unsigned char>(c))) cur += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    else flush();
  }
  flush();
  return out;
}

}  // namespace

bool locate_answer(const std::string& context, const std::string& question, const std::string& answer,
                   int64_t hint, size_t* begin, size_t* end) {
  size_t ab = 0, ae = answer.size();
  while (ab < ae && is_ws(answer[ab])) ++ab;
  while (ae > ab && is_ws(answer[ae - 1])) --ae;
  if (ab == ae) return false;
  const std::string a = answer.substr(ab, ae - ab);
  std::vector<size_t> occ;
  for (size_t p = context.find(a); p != std::string::npos; p = context.find(a, p + 1)) occ.push_back(p);
  if (occ.empty()) return false;
  size_t best = occ[0];
  if (occ.size() > 1) {
    const std::string lc = lower(context);
    const std::vector<std::string> words = content_words(question);
    // Positions of every question word in the context, found once.
    std::vector<std::vector<size_t>> where(words.size());
    for (size_t w = 0; w < words.size(); ++w)
      for (size_t p = lc.find(words[w]); p != std::string::npos; p = lc.find(words[w], p + 1)) where[w].push_back(p);
    double best_score = -1;
    uint64_t best_dist = ~0ull;
    for (size_t p : occ) {
      double score = 0;
      for (size_t w = 0; w < words.size(); ++w) {
        size_t nearest = ~size_t(0);
        for (size_t q : where[w]) {
          size_t d = q + words[w].size() <= p ? p - (q + words[w].size()) : (q >= p + a.size() ? q - (p + a.size()) : 0);
          nearest = std::min(nearest, d);
        }
        if (nearest < kAnswerWindowBytes) score += double(kAnswerWindowBytes - nearest);
      }
      uint64_t dist = hint < 0 ? p : static_cast<uint64_t>(std::llabs(static_cast<long long>(p) - hint));
      if (score > best_score || (score == best_score && dist < best_dist)) {
        best_score = score;
        best_dist = dist;
        best = p;
      }
    }
  }
  *begin = best;
  *end = best + a.size();
  return true;
}

bool answer_token_span(const std::vector<uint32_t>& offsets, size_t passage_len, size_t begin, size_t end,
                       uint32_t* first, uint32_t* last) {
  if (offsets.empty() || begin >= end || end > passage_len) return false;
  // Token i covers [offsets[i], offsets[i+1]); find the tokens holding bytes begin and end-1.
  auto holder = [&](size_t byte) {
    auto it = std::upper_bound(offsets.begin(), offsets.end(), static_cast<uint32_t>(byte));
    return static_cast<uint32_t>((it - offsets.begin()) - 1);
  };
  if (offsets[0] > begin) return false;
  *first = holder(begin);
  *last = holder(end - 1);
  return *first <= *last;
}

Prompt build_prompt(const TokenizerView& tok, const std::string& question, const std::string& passage) {
  Prompt p;
  p.tokens.push_back(kBos);
  encode_append(tok, question.data(), question.size(), p.tokens);
  encode_append(tok, kSep, sizeof kSep - 1, p.tokens);
  std::vector<uint32_t> ids;
  encode_append(tok, passage.data(), passage.size(), ids, &p.passage_offsets);
  p.passage_begin = static_cast<uint32_t>(p.tokens.size());
  p.tokens.insert(p.tokens.end(), ids.begin(), ids.end());
  p.passage_end = static_cast<uint32_t>(p.tokens.size());
  p.tokens.push_back(kAns);
  return p;
}

namespace {
// Prompt + targets; the mask marks the positions that predict each target.
void finish(Prompt&& p, const std::vector<uint32_t>& targets, Example* out) {
  out->tokens = std::move(p.tokens);
  out->mask.assign(out->tokens.size() + targets.size(), 0);
  size_t ans_pos = out->tokens.size() - 1;  // ANS predicts the first target
  for (size_t i = 0; i < targets.size(); ++i) out->mask[ans_pos + i] = 1;
  out->tokens.insert(out->tokens.end(), targets.begin(), targets.end());
  out->passage_begin = p.passage_begin;
  out->passage_end = p.passage_end;
}
}  // namespace

bool build_answer_example(const TokenizerView& tok, const std::string& question, const std::string& passage,
                          size_t answer_begin, size_t answer_end, size_t max_tokens, Example* out) {
  Prompt p = build_prompt(tok, question, passage);
  uint32_t first = 0, last = 0;
  if (!answer_token_span(p.passage_offsets, passage.size(), answer_begin, answer_end, &first, &last)) return false;
  std::vector<uint32_t> targets(p.tokens.begin() + p.passage_begin + first,
                                p.tokens.begin() + p.passage_begin + last + 1);
  targets.push_back(kEot);
  if (p.tokens.size() + targets.size() > max_tokens) return false;
  const uint32_t answer_at = p.passage_begin + first;
  finish(std::move(p), targets, out);
  out->answer_begin = answer_at;
  out->abstain = false;
  return true;
}

bool build_abstain_example(const TokenizerView& tok, const std::string& question, const std::string& passage,
                           size_t max_tokens, Example* out) {
  Prompt p = build_prompt(tok, question, passage);
  if (p.tokens.size() + 2 > max_tokens) return false;
  finish(std::move(p), {kAbstain, kEot}, out);
  out->answer_begin = 0;
  out->abstain = true;
  return true;
}

void reread_question(const TokenizerView& tok, Example* ex) {
  std::vector<uint32_t> sep;
  encode_append(tok, kSep, sizeof kSep - 1, sep);
  const size_t pb = ex->passage_begin, pe = ex->passage_end;
  if (pb < 1 + sep.size() || pe < pb || pe > ex->tokens.size()) return;
  const size_t qe = pb - sep.size();  // the question is tokens [1, qe)
  const auto t = ex->tokens.begin();
  std::vector<uint32_t> again(t + static_cast<long>(qe), t + static_cast<long>(pb));  // the separator
  again.insert(again.end(), t + 1, t + static_cast<long>(qe));                       // the question
  ex->tokens.insert(ex->tokens.begin() + static_cast<long>(pe), again.begin(), again.end());
  ex->mask.insert(ex->mask.begin() + static_cast<long>(pe), again.size(), uint8_t{0});
}

bool contains_any_answer(const std::string& text, const std::vector<std::string>& answers) {
  const std::string lt = lower(text);
  for (const auto& a : answers) {
    std::string la = lower(a);
    size_t b = 0, e = la.size();
    while (b < e && is_ws(la[b])) ++b;
    while (e > b && is_ws(la[e - 1])) --e;
    if (e > b && lt.find(la.substr(b, e - b)) != std::string::npos) return true;
  }
  return false;
}

std::vector<AbstainPair> abstain_pairs(const std::vector<eval::SquadArticle>& articles, uint64_t seed) {
  std::vector<AbstainPair> out;
  Rng rng(seed ^ 0x6162737461696eull);  // "abstain"
  for (size_t a = 0; a < articles.size(); ++a) {
    const auto& paras = articles[a].paragraphs;
    if (paras.size() < 2) continue;
    for (size_t p = 0; p < paras.size(); ++p) {
      for (size_t q = 0; q < paras[p].qas.size(); ++q) {
        // A few random tries for a paragraph without the answer; skip if none.
        for (int attempt = 0; attempt < 4; ++attempt) {
          size_t other = rng.below(paras.size() - 1);
          if (other >= p) ++other;
          if (!contains_any_answer(paras[other].context, paras[p].qas[q].answers)) {
            out.push_back({a, p, q, other});
            break;
          }
        }
      }
    }
  }
  return out;
}

}  // namespace amxqa::train
