#include "squad_eval_set.h"

#include <exception>

#include "data/gz_text.h"
#include "squad/json.h"

namespace amxqa::eval {

namespace {

using amxqa::train::JsonValue;

const std::string* string_member(const JsonValue& v, const char* key) {
  const JsonValue* m = v.get(key);
  return m && m->is_string() ? &m->str : nullptr;
}

// One entry of "qas"; false when it cannot be scored.
bool read_question(const JsonValue& q, size_t context, EvalQuestion* out) {
  const std::string* question = string_member(q, "question");
  if (!question) return false;
  out->question = *question;
  out->context = context;
  if (const std::string* id = string_member(q, "id")) out->id = *id;
  const JsonValue* imp = q.get("is_impossible");
  out->impossible = imp && imp->type == JsonValue::Type::boolean && imp->b;
  if (const JsonValue* answers = q.get("answers"); answers && answers->is_array() && !out->impossible) {
    for (const JsonValue& a : answers->arr)
      if (const std::string* text = string_member(a, "text"); text && !text->empty()) out->answers.push_back(*text);
  }
  return out->impossible || !out->answers.empty();
}

}  // namespace

bool load_eval_set(const std::string& path, size_t limit, EvalSet* out, std::string* error) {
  JsonValue root;
  try {
    root = amxqa::train::parse_json(amxqa::train::read_gz(path));
  } catch (const std::exception& e) {
    *error = path + ": " + e.what();
    return false;
  }
  const JsonValue* data = root.get("data");
  if (!data || !data->is_array()) {
    *error = path + ": not a SQuAD file (no \"data\" array)";
    return false;
  }
  for (const JsonValue& article : data->arr) {
    const JsonValue* paragraphs = article.get("paragraphs");
    if (!paragraphs || !paragraphs->is_array()) continue;
    for (const JsonValue& p : paragraphs->arr) {
      const std::string* context = string_member(p, "context");
      const JsonValue* qas = p.get("qas");
      if (!context || !qas || !qas->is_array()) {
        ++out->skipped;
        continue;
      }
      out->contexts.push_back(*context);
      for (const JsonValue& q : qas->arr) {
        if (limit && out->questions.size() >= limit) return true;
        EvalQuestion eq;
        if (read_question(q, out->contexts.size() - 1, &eq))
          out->questions.push_back(std::move(eq));
        else
          ++out->skipped;
      }
    }
  }
  return true;
}

}  // namespace amxqa::eval
