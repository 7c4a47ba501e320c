#include "squad_file.h"

#include <nlohmann/json.hpp>
#include <stdexcept>

#include "gz_text.h"
#include "json_members.h"

namespace amxqa::eval {
namespace {

using nlohmann::json;

// The non-empty {"text", "answer_start"} items of an answers array.
void read_spans(const json& items, std::vector<std::string>* texts, std::vector<int64_t>* starts) {
  for (const json& an : items) {
    const std::string* text = string_member(an, "text");
    if (!text || text->empty()) continue;
    int64_t start = -1;
    if (const json* st = number_member(an, "answer_start")) {
      const double v = st->get<double>();
      if (v >= 0 && v < 1e15) start = static_cast<int64_t>(v);
    }
    texts->push_back(*text);
    starts->push_back(start);
  }
}

bool read_qa(const json& q, SquadQa* qa) {
  const std::string* question = string_member(q, "question");
  const json* answers = array_member(q, "answers");
  if (!question || !answers) return false;
  if (const std::string* id = string_member(q, "id")) qa->id = *id;
  qa->question = *question;
  read_spans(*answers, &qa->answers, &qa->answer_starts);
  return !qa->answers.empty();
}

bool is_impossible(const json& q) {
  const auto it = q.find("is_impossible");
  return it != q.end() && it->is_boolean() && it->get<bool>();
}

bool read_unanswerable(const json& q, SquadUnanswerable* u) {
  const std::string* question = string_member(q, "question");
  if (!question || question->empty()) return false;
  u->question = *question;
  if (const std::string* id = string_member(q, "id")) u->id = *id;
  if (const std::string* pr = string_member(q, "provenance")) u->provenance = *pr;
  if (const json* pl = array_member(q, "plausible_answers")) read_spans(*pl, &u->plausible, &u->plausible_starts);
  return true;
}

}  // namespace

std::vector<SquadArticle> parse_squad(const std::string& text, bool keep_unanswerable) {
  // nlohmann-json parses and destroys without recursion, so deeply nested
  // untrusted input costs memory, not the stack.
  json root = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (root.is_discarded()) throw std::runtime_error("SQuAD: not valid JSON");
  const json* data = array_member(root, "data");
  if (!data) throw std::runtime_error("SQuAD: no \"data\" array");
  std::vector<SquadArticle> out;
  for (const json& a : *data) {
    SquadArticle art;
    if (const std::string* t = string_member(a, "title")) art.title = *t;
    const json* paras = array_member(a, "paragraphs");
    if (!paras) continue;
    for (const json& p : *paras) {
      const std::string* ctx = string_member(p, "context");
      if (!ctx) continue;
      SquadParagraph para;
      para.context = *ctx;
      if (const json* qas = array_member(p, "qas"))
        for (const json& q : *qas) {
          if (!q.is_object()) continue;
          if (keep_unanswerable && is_impossible(q)) {
            SquadUnanswerable u;
            if (read_unanswerable(q, &u)) para.unanswerable.push_back(std::move(u));
            continue;
          }
          SquadQa qa;
          if (read_qa(q, &qa)) para.qas.push_back(std::move(qa));
        }
      art.paragraphs.push_back(std::move(para));
    }
    out.push_back(std::move(art));
  }
  return out;
}

std::vector<SquadArticle> load_squad(const std::string& path, bool keep_unanswerable) {
  return parse_squad(read_gz(path), keep_unanswerable);
}

size_t count_questions(const std::vector<SquadArticle>& articles) {
  size_t n = 0;
  for (const auto& a : articles)
    for (const auto& p : a.paragraphs) n += p.qas.size();
  return n;
}

}  // namespace amxqa::eval
