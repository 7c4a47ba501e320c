#include "stages/sft_data.h"

#include <algorithm>
#include <cctype>
#include <map>

#include "data/rng.h"
#include "stages/cloze.h"
#include "stages/text_words.h"
#include "stages/unanswerable.h"

namespace amxqa::train {
namespace {

bool is_space(char c) { return c == ' ' || c == '\n' || c == '\t' || c == '\r'; }

// Word byte ranges (maximal runs of non-space), trailing punctuation excluded.
std::vector<std::pair<size_t, size_t>> words_of(const std::string& t, size_t b, size_t e) {
  std::vector<std::pair<size_t, size_t>> out;
  size_t i = b;
  while (i < e) {
    while (i < e && is_space(t[i])) ++i;
    size_t s = i;
    while (i < e && !is_space(t[i])) ++i;
    size_t w = i;
    while (w > s && std::ispunct(static_cast<unsigned char>(t[w - 1]))) --w;
    if (w > s) out.emplace_back(s, w);
  }
  return out;
}

void take_val(SftSet& s, size_t val) {
  val = std::min(val, s.train.size() / 4);
  s.val.assign(s.train.end() - static_cast<long>(val), s.train.end());
  s.train.resize(s.train.size() - val);
}

}  // namespace

std::vector<std::pair<size_t, size_t>> split_sentences(const std::string& t) {
  std::vector<std::pair<size_t, size_t>> out;
  size_t start = 0;
  while (start < t.size() && is_space(t[start])) ++start;
  for (size_t i = start; i < t.size(); ++i) {
    char c = t[i];
    bool end = false;
    if ((c == '.' || c == '!' || c == '?') && i + 2 < t.size() && t[i + 1] == ' ') {
      unsigned char n = static_cast<unsigned char>(t[i + 2]);
      end = std::isupper(n) || std::isdigit(n) || n == '"';
    }
    if (end || i + 1 == t.size()) {
      size_t e = i + 1;
      if (e > start) out.emplace_back(start, e);
      start = e;
      while (start < t.size() && is_space(t[start])) ++start;
      i = start > 0 ? start - 1 : 0;
    }
  }
  return out;
}

SftSet build_stop_set(const std::vector<std::string>& paragraphs, const TokenizerView& tok, size_t n, size_t val,
                      size_t max_tokens, uint64_t seed, const ClozeMix& cloze) {
  SftSet s;
  Rng rng(seed ^ 0x73746f70ull);  // "stop"
  Rng cloze_rng(seed ^ 0x636c6f7a65ull);  // "cloze": its own stream, so the instructions keep theirs
  ClozeMaker cloze_maker;
  std::vector<size_t> order(paragraphs.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  shuffle(order, rng);
  const size_t want = n + val;
  for (size_t pi = 0; pi < order.size() && s.train.size() < want; ++pi) {
    const std::string& p = paragraphs[order[pi]];
    Cloze c;
    if (cloze.frac > 0 && cloze_rng.uniform() < cloze.frac && cloze_maker.question(p, cloze_rng, &c)) {
      Example ex;
      if (!build_span_example(tok, c.question, p, c.answer_begin, c.answer_end, max_tokens, &ex)) {
        ++s.skipped;
        continue;
      }
      s.train.push_back(std::move(ex));
      ++s.cloze;
      ClozeTwin t;
      if (cloze.twin_frac > 0 && cloze_rng.uniform() < cloze.twin_frac && cloze_maker.twin(p, c, cloze_rng, &t) &&
          build_abstain_example(tok, t.question, t.passage, max_tokens, &ex)) {
        s.train.push_back(std::move(ex));
        ++s.cloze;
      }
      continue;
    }
    auto sents = split_sentences(p);
    auto words = words_of(p, 0, p.size());
    if (sents.size() < 2 || words.size() < 8) {
      ++s.skipped;
      continue;
    }
    std::string instr;
    size_t b = 0, e = 0;
    switch (rng.below(5)) {
      case 0:
        instr = "What is the first sentence?";
        b = sents.front().first, e = sents.front().second;
        break;
      case 1:
        instr = "What is the last sentence?";
        b = sents.back().first, e = sents.back().second;
        break;
      case 2: {
        // A capitalised word inside a sentence that no other sentence repeats.
        std::vector<std::pair<size_t, size_t>> cands;
        for (const auto& w : words) {
          if (w.second - w.first < 4 || !std::isupper(static_cast<unsigned char>(p[w.first]))) continue;
          if (w.first > 0 && w.first >= 2 && p[w.first - 2] == '.') continue;
          if (count_occurrences(p, p.substr(w.first, w.second - w.first)) == 1) cands.push_back(w);
        }
        if (cands.empty()) {
          instr = "What is the first sentence?";
          b = sents.front().first, e = sents.front().second;
          break;
        }
        auto w = cands[rng.below(cands.size())];
        instr = "Which sentence mentions " + p.substr(w.first, w.second - w.first) + "?";
        for (const auto& st : sents)
          if (st.first <= w.first && w.second <= st.second) b = st.first, e = st.second;
        break;
      }
      case 3:
        instr = "What is the first word?";
        b = words.front().first, e = words.front().second;
        break;
      default: {
        // The word after a word that occurs once.
        std::vector<size_t> cands;
        for (size_t i = 0; i + 1 < words.size(); ++i)
          if (words[i].second - words[i].first >= 3 &&
              count_occurrences(p, p.substr(words[i].first, words[i].second - words[i].first)) == 1)
            cands.push_back(i);
        if (cands.empty()) {
          instr = "What is the last sentence?";
          b = sents.back().first, e = sents.back().second;
          break;
        }
        size_t i = cands[rng.below(cands.size())];
        instr = "What word comes after \"" + p.substr(words[i].first, words[i].second - words[i].first) + "\"?";
        b = words[i + 1].first, e = words[i + 1].second;
      }
    }
    Example ex;
    if (e > b && build_span_example(tok, instr, p, b, e, max_tokens, &ex)) s.train.push_back(std::move(ex));
    else ++s.skipped;
  }
  if (s.train.size() > want) s.train.resize(want);  // a twin after the last wanted question
  take_val(s, val);
  s.unanswerable = static_cast<size_t>(std::count_if(s.train.begin(), s.train.end(), [](const Example& x) { return x.abstain; }));
  return s;
}

namespace {
struct QaRef {
  size_t a, p, q;
};
std::vector<QaRef> shuffled_questions(const std::vector<eval::SquadArticle>& train, uint64_t seed) {
  std::vector<QaRef> refs;
  for (size_t a = 0; a < train.size(); ++a)
    for (size_t p = 0; p < train[a].paragraphs.size(); ++p)
      for (size_t q = 0; q < train[a].paragraphs[p].qas.size(); ++q) refs.push_back({a, p, q});
  Rng rng(seed);
  shuffle(refs, rng);
  return refs;
}

// The passage cropped to whole sentences around bytes [b, e): the sentences
// overlapping them plus `before` / `after` more. Offsets shift to the crop.
std::string crop_around(const std::string& ctx, size_t* b, size_t* e, size_t before, size_t after) {
  const auto sents = split_sentences(ctx);
  size_t first = sents.size(), last = 0;
  for (size_t i = 0; i < sents.size(); ++i)
    if (sents[i].first < *e && *b < sents[i].second) first = std::min(first, i), last = std::max(last, i);
  if (first == sents.size()) return ctx;
  first = first > before ? first - before : 0;
  last = std::min(sents.size() - 1, last + after);
  const size_t cb = sents[first].first, ce = sents[last].second;
  if (cb > *b || ce < *e) return ctx;
  *b -= cb;
  *e -= cb;
  return ctx.substr(cb, ce - cb);
}

// A random run of whole sentences, sized as crop_around's: one sentence and
// 0–3 on each side.
std::string crop_random_sentences(const std::string& text, Rng& rng) {
  const auto sents = split_sentences(text);
  if (sents.size() < 2) return text;
  const size_t mid = rng.below(sents.size()), before = rng.below(4), after = rng.below(4);
  const size_t first = mid > before ? mid - before : 0, last = std::min(sents.size() - 1, mid + after);
  return text.substr(sents[first].first, sents[last].second - sents[first].first);
}

// Real unanswerable questions whose provenance is kept, shuffled.
std::vector<QaRef> shuffled_real_unanswerable(const std::vector<eval::SquadArticle>& train,
                                              const std::string& provenance, uint64_t seed) {
  std::vector<std::string> keep;
  for (size_t i = 0; i < provenance.size();) {
    const size_t j = std::min(provenance.find(' ', i), provenance.size());
    if (j > i) keep.push_back(provenance.substr(i, j - i));
    i = j + 1;
  }
  std::vector<QaRef> refs;
  for (size_t a = 0; a < train.size(); ++a)
    for (size_t p = 0; p < train[a].paragraphs.size(); ++p) {
      const auto& un = train[a].paragraphs[p].unanswerable;
      for (size_t q = 0; q < un.size(); ++q)
        if (keep.empty() || std::find(keep.begin(), keep.end(), un[q].provenance) != keep.end())
          refs.push_back({a, p, q});
    }
  Rng rng(seed);
  shuffle(refs, rng);
  return refs;
}

// A real unanswerable question (r.q indexes the paragraph's unanswerable
// list) on its own paragraph; with crop, cropped to whole sentences around
// its plausible answer (a random run when it has none), as answerable
// passages are cropped around theirs.
bool real_unanswerable_example(const std::vector<eval::SquadArticle>& train, const QaRef& r, const TokenizerView& tok,
                               size_t max_tokens, Example* ex, Rng* crop) {
  const eval::SquadParagraph& para = train[r.a].paragraphs[r.p];
  const eval::SquadUnanswerable& u = para.unanswerable[r.q];
  std::string passage = para.context;
  if (crop) {
    size_t b = 0, e = 0;
    const bool located = !u.plausible.empty() && locate_answer(para.context, u.question, u.plausible[0],
                                                               u.plausible_starts[0], &b, &e);
    const size_t before = crop->below(4), after = crop->below(4);
    passage = located ? crop_around(para.context, &b, &e, before, after) : crop_random_sentences(para.context, *crop);
  }
  return build_abstain_example(tok, u.question, passage, max_tokens, ex);
}

bool answer_example(const std::vector<eval::SquadArticle>& train, const QaRef& r, const TokenizerView& tok,
                    size_t max_tokens, Example* ex, Rng* crop = nullptr) {
  const eval::SquadParagraph& para = train[r.a].paragraphs[r.p];
  const eval::SquadQa& qa = para.qas[r.q];
  size_t b = 0, e = 0;
  if (!locate_answer(para.context, qa.question, qa.answers[0], qa.answer_starts[0], &b, &e)) return false;
  if (crop) {
    const size_t before = crop->below(4), after = crop->below(4);
    const std::string passage = crop_around(para.context, &b, &e, before, after);
    return build_answer_example(tok, qa.question, passage, b, e, max_tokens, ex);
  }
  return build_answer_example(tok, qa.question, para.context, b, e, max_tokens, ex);
}
}  // namespace

SftSet build_qa_set(const std::vector<eval::SquadArticle>& train, const TokenizerView& tok, size_t n, size_t val,
                    size_t max_tokens, uint64_t seed, double crop_frac, const UnanswerableMix& mix,
                    const RealUnanswerableMix& real) {
  SftSet s;
  const size_t want = n + val;
  std::vector<QaRef> used;
  for (const QaRef& r : shuffled_questions(train, seed ^ 0x7161ull)) {
    if (s.train.size() >= want) break;
    Example ex;
    if (answer_example(train, r, tok, max_tokens, &ex)) {
      s.train.push_back(std::move(ex));
      used.push_back(r);
    } else {
      ++s.skipped;
    }
  }
  take_val(s, val);
  // Crops replace training examples only (validation stays whole passages);
  // with crop_frac 0 the set is exactly the uncropped one.
  Rng rng(seed ^ 0x63726f70ull);  // "crop"
  for (size_t i = 0; crop_frac > 0 && i < s.train.size(); ++i) {
    if (rng.uniform() >= crop_frac) continue;
    Example ex;
    if (answer_example(train, used[i], tok, max_tokens, &ex, &rng)) s.train[i] = std::move(ex);
  }
  // Real unanswerable questions take their slots first, from their own
  // stream; the made-up kinds below draw as before and skip those slots.
  std::vector<bool> taken(s.train.size(), false);
  if (real.frac > 0) {
    const std::vector<QaRef> refs = shuffled_real_unanswerable(train, real.provenance, seed ^ 0x7265616cull);  // "real"
    Rng rr(seed ^ 0x7265616c31ull);
    for (size_t i = 0, next = 0; !refs.empty() && i < s.train.size(); ++i) {
      if (rr.uniform() >= real.frac) continue;
      Example ex;
      const bool crop = rr.uniform() < crop_frac;
      if (!real_unanswerable_example(train, refs[next++ % refs.size()], tok, max_tokens, &ex, crop ? &rr : nullptr))
        continue;
      s.train[i] = std::move(ex);
      taken[i] = true;
      ++s.unanswerable;
      ++s.real;
    }
  }
  // Unanswerable replacements draw from their own stream, so crop_frac's
  // choices above are the same with or without them.
  Rng un(seed ^ 0x756e616e73ull);  // "unans"
  UnanswerableKind kinds[kUnanswerableKinds];
  size_t n_kinds = 0;
  for (int k = 0; k < kUnanswerableKinds; ++k)
    if (mix.kinds & (1u << k)) kinds[n_kinds++] = static_cast<UnanswerableKind>(k);
  for (size_t i = 0; mix.frac > 0 && n_kinds > 0 && i < s.train.size(); ++i) {
    if (un.uniform() >= mix.frac) continue;
    const size_t first_kind = un.below(n_kinds);
    if (taken[i]) continue;
    for (size_t k = 0; k < n_kinds; ++k) {
      const UnanswerableKind kind = kinds[(first_kind + k) % n_kinds];
      Unanswerable u;
      if (!make_unanswerable(train, used[i].a, used[i].p, used[i].q, kind, mix.hard_frac, un, &u)) continue;
      if (un.uniform() < crop_frac) u.passage = crop_random_sentences(u.passage, un);
      Example ex;
      if (!build_abstain_example(tok, u.question, u.passage, max_tokens, &ex)) continue;
      s.train[i] = std::move(ex);
      ++s.unanswerable;
      ++s.by_kind[static_cast<size_t>(kind)];
      break;
    }
  }
  return s;
}

SftSet build_abstain_set(const std::vector<eval::SquadArticle>& train, const TokenizerView& tok, size_t n, size_t val,
                         double unanswerable_frac, size_t max_tokens, uint64_t seed,
                         const RealUnanswerableMix& real) {
  SftSet s;
  const size_t total = n + val;
  const size_t want_unans = static_cast<size_t>(unanswerable_frac * double(total) + 0.5);
  const size_t want_real = std::min(want_unans, static_cast<size_t>(real.frac * double(total) + 0.5));
  const size_t want_ans = total - want_unans;
  std::vector<Example> ans, unans;
  for (const QaRef& r : shuffled_questions(train, seed ^ 0x616e73ull)) {
    if (ans.size() >= want_ans) break;
    Example ex;
    if (answer_example(train, r, tok, max_tokens, &ex)) ans.push_back(std::move(ex));
    else ++s.skipped;
  }
  if (want_real > 0) {
    const std::vector<QaRef> refs = shuffled_real_unanswerable(train, real.provenance, seed ^ 0x7265616cull);
    for (size_t i = 0; i < refs.size() && unans.size() < want_real; ++i) {
      Example ex;
      if (real_unanswerable_example(train, refs[i], tok, max_tokens, &ex, nullptr)) unans.push_back(std::move(ex));
      else ++s.skipped;
    }
  }
  s.real = unans.size();
  std::vector<AbstainPair> pairs = abstain_pairs(train, seed);
  Rng rng(seed ^ 0x756e616e73ull);
  shuffle(pairs, rng);
  for (const AbstainPair& p : pairs) {
    if (unans.size() >= want_unans) break;
    const eval::SquadQa& qa = train[p.article].paragraphs[p.paragraph].qas[p.qa];
    Example ex;
    if (build_abstain_example(tok, qa.question, train[p.article].paragraphs[p.other].context, max_tokens, &ex))
      unans.push_back(std::move(ex));
    else
      ++s.skipped;
  }
  s.unanswerable = unans.size();
  s.train = std::move(ans);
  for (auto& e : unans) s.train.push_back(std::move(e));
  shuffle(s.train, rng);
  take_val(s, val);
  s.unanswerable = 0;
  for (const auto& e : s.train) s.unanswerable += e.abstain;
  return s;
}

void apply_prompt_format(const ArchConfig& arch, const TokenizerView& tok, SftSet& set) {
  if (!arch.question_reread) return;
  for (std::vector<Example>* part : {&set.train, &set.val})
    for (Example& ex : *part) reread_question(tok, &ex);
}

ExampleSource::ExampleSource(const std::vector<Example>& ex, uint64_t seed, const Corpus* replay, double replay_frac)
    : ex_(ex), order_([&] {
        std::vector<uint32_t> idx(ex.size());
        for (size_t i = 0; i < idx.size(); ++i) idx[i] = static_cast<uint32_t>(i);
        return idx;
      }(), seed),
      replay_frac_(replay ? replay_frac : 0.0), seed_(seed) {
  if (ex_.empty()) throw std::runtime_error("no SFT examples could be built");
  if (replay && replay_frac > 0) replay_ = std::make_unique<PieceSource>(*replay, seed + 17);
}

const Example& ExampleSource::at(uint64_t cursor) {
  if (replay_) {
    uint64_t h = seed_ ^ (cursor * 0x9e3779b97f4a7c15ull);
    double u = (splitmix64(h) >> 11) * (1.0 / 9007199254740992.0);
    if (u < replay_frac_) return replay_->at(cursor);
  }
  return ex_[order_.at(cursor)];
}

}  // namespace amxqa::train
