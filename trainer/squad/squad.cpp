#include "squad/squad.h"

#include <stdexcept>

#include "data/gz_text.h"
#include "squad/json.h"

namespace amxqa::train {

std::vector<SquadArticle> parse_squad(const std::string& json) {
  JsonValue root = parse_json(json);
  const JsonValue* data = root.get("data");
  if (!data || !data->is_array()) throw std::runtime_error("SQuAD: no \"data\" array");
  std::vector<SquadArticle> out;
  for (const JsonValue& a : data->arr) {
    SquadArticle art;
    if (const JsonValue* t = a.get("title"); t && t->is_string()) art.title = t->str;
    const JsonValue* paras = a.get("paragraphs");
    if (!paras || !paras->is_array()) continue;
    for (const JsonValue& p : paras->arr) {
      const JsonValue* ctx = p.get("context");
      if (!ctx || !ctx->is_string()) continue;
      SquadParagraph para;
      para.context = ctx->str;
      if (const JsonValue* qas = p.get("qas"); qas && qas->is_array()) {
        for (const JsonValue& q : qas->arr) {
          const JsonValue* qt = q.get("question");
          const JsonValue* ans = q.get("answers");
          if (!qt || !qt->is_string() || !ans || !ans->is_array()) continue;
          SquadQa qa;
          if (const JsonValue* id = q.get("id"); id && id->is_string()) qa.id = id->str;
          qa.question = qt->str;
          for (const JsonValue& an : ans->arr) {
            const JsonValue* text = an.get("text");
            if (!text || !text->is_string() || text->str.empty()) continue;
            const JsonValue* st = an.get("answer_start");
            int64_t start = -1;
            if (st && st->is_number() && st->num >= 0 && st->num < 1e15) start = static_cast<int64_t>(st->num);
            qa.answers.push_back(text->str);
            qa.answer_starts.push_back(start);
          }
          if (!qa.answers.empty()) para.qas.push_back(std::move(qa));
        }
      }
      art.paragraphs.push_back(std::move(para));
    }
    out.push_back(std::move(art));
  }
  return out;
}

std::vector<SquadArticle> load_squad(const std::string& path) { return parse_squad(read_gz(path)); }

size_t count_questions(const std::vector<SquadArticle>& articles) {
  size_t n = 0;
  for (const auto& a : articles)
    for (const auto& p : a.paragraphs) n += p.qas.size();
  return n;
}

}  // namespace amxqa::train
