#include "finetune/finetune_data.h"

#include <cmath>
#include <stdexcept>

#include "gz_text.h"

namespace amxqa::train {
namespace {

// Byte offset of code point `chars` in UTF-8 text (SQuAD's answer_start
// counts characters); npos past the end.
size_t byte_of_char(const std::string& text, int64_t chars) {
  int64_t seen = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if ((static_cast<unsigned char>(text[i]) & 0xC0) == 0x80) continue;  // continuation byte
    if (seen++ == chars) return i;
  }
  return seen == chars ? text.size() : std::string::npos;
}

std::string quoted(const std::string& s) { return "'" + (s.size() > 60 ? s.substr(0, 57) + "..." : s) + "'"; }

void check_answers(const std::string& path, const eval::SquadArticle& art, size_t p, const eval::SquadQa& qa) {
  const std::string& ctx = art.paragraphs[p].context;
  for (size_t i = 0; i < qa.answers.size(); ++i) {
    const std::string& text = qa.answers[i];
    const int64_t start = i < qa.answer_starts.size() ? qa.answer_starts[i] : -1;
    bool ok;
    if (start < 0) {
      ok = ctx.find(text) != std::string::npos;
    } else {
      const size_t b = byte_of_char(ctx, start);
      ok = b != std::string::npos && ctx.compare(b, text.size(), text) == 0;
    }
    if (!ok)
      throw std::runtime_error(
          path + ": question " + (qa.id.empty() ? quoted(qa.question) : "'" + qa.id + "'") + " (article " +
          quoted(art.title) + ", paragraph " + std::to_string(p + 1) + "): answer " + quoted(text) +
          (start < 0 ? " does not occur in its context"
                     : " is not at its answer_start " + std::to_string(start) +
                           " (characters into the context)"));
  }
}

bool has_questions(const eval::SquadParagraph& p) { return !p.qas.empty() || !p.unanswerable.empty(); }

}  // namespace

QuestionCounts count_squad(const std::vector<eval::SquadArticle>& articles) {
  QuestionCounts c;
  c.articles = articles.size();
  for (const auto& a : articles)
    for (const auto& p : a.paragraphs) {
      c.paragraphs += has_questions(p);
      c.answerable += p.qas.size();
      c.unanswerable += p.unanswerable.size();
    }
  return c;
}

std::vector<eval::SquadArticle> load_finetune_squad(const std::string& path) {
  const std::string text = eval::read_gz(path);  // its errors name the file
  std::vector<eval::SquadArticle> articles;
  try {
    articles = eval::parse_squad(text, /*keep_unanswerable=*/true);
  } catch (const std::runtime_error& e) {
    throw std::runtime_error(path + ": " + e.what());
  }
  for (const auto& a : articles)
    for (size_t p = 0; p < a.paragraphs.size(); ++p)
      for (const auto& qa : a.paragraphs[p].qas) check_answers(path, a, p, qa);
  if (count_squad(articles).total() == 0)
    throw std::runtime_error(path +
                             ": no usable question (a SQuAD file needs data[].paragraphs[].qas[] with a question "
                             "and answers, or \"is_impossible\": true)");
  return articles;
}

FinetuneSplit split_by_paragraph(const std::vector<eval::SquadArticle>& articles, double fraction) {
  const size_t n = count_squad(articles).paragraphs;
  if (n < 2)
    throw std::runtime_error("the data has " + std::to_string(n) +
                             " paragraph(s) with questions: at least 2 are needed to hold one out (or pass --dev FILE)");
  // Paragraph i (of those with questions) is held out when floor((i + 1) f)
  // passes an integer: evenly spaced, round(n f) of them.
  size_t want = static_cast<size_t>(std::lround(double(n) * fraction));
  want = std::min(std::max<size_t>(want, 1), n - 1);
  const double f = double(want) / double(n);
  FinetuneSplit s;
  size_t i = 0;
  for (const auto& a : articles) {
    eval::SquadArticle train{a.title, {}}, held{a.title, {}};
    for (const auto& p : a.paragraphs) {
      if (!has_questions(p)) continue;
      const bool out = std::floor(double(i + 1) * f + 1e-9) > std::floor(double(i) * f + 1e-9);
      (out ? held : train).paragraphs.push_back(p);
      ++i;
    }
    if (!train.paragraphs.empty()) s.train.push_back(std::move(train));
    if (!held.paragraphs.empty()) s.held_out.push_back(std::move(held));
  }
  return s;
}

eval::EvalSet to_eval_set(const std::vector<eval::SquadArticle>& articles) {
  eval::EvalSet set;
  for (const auto& a : articles)
    for (const auto& p : a.paragraphs) {
      if (!has_questions(p)) continue;
      set.contexts.push_back(p.context);
      const size_t c = set.contexts.size() - 1;
      for (const auto& qa : p.qas) set.questions.push_back({qa.id, qa.question, c, qa.answers, false});
      for (const auto& u : p.unanswerable) set.questions.push_back({u.id, u.question, c, {}, true});
    }
  return set;
}

}  // namespace amxqa::train
