#include "squad_eval_set.h"

#include <exception>
#include <nlohmann/json.hpp>

#include "gz_text.h"
#include "json_members.h"

namespace amxqa::eval {

namespace {

using nlohmann::json;

// One entry of "qas"; false when it cannot be scored.
bool read_question(const json& q, size_t context, EvalQuestion* out) {
  const std::string* question = string_member(q, "question");
  if (!question) return false;
  out->question = *question;
  out->context = context;
  if (const std::string* id = string_member(q, "id")) out->id = *id;
  const auto imp = q.find("is_impossible");
  out->impossible = imp != q.end() && imp->is_boolean() && imp->get<bool>();
  if (const json* answers = array_member(q, "answers"); answers && !out->impossible) {
    for (const json& a : *answers)
      if (const std::string* text = string_member(a, "text"); text && !text->empty()) out->answers.push_back(*text);
  }
  return out->impossible || !out->answers.empty();
}

}  // namespace

bool load_eval_set(const std::string& path, size_t limit, EvalSet* out, std::string* error) {
  json root;
  try {
    root = json::parse(read_gz(path), nullptr, /*allow_exceptions=*/false);
  } catch (const std::exception& e) {
    *error = path + ": " + e.what();
    return false;
  }
  if (root.is_discarded()) {
    *error = path + ": not valid JSON";
    return false;
  }
  const json* data = array_member(root, "data");
  if (!data) {
    *error = path + ": not a SQuAD file (no \"data\" array)";
    return false;
  }
  for (const json& article : *data) {
    const json* paragraphs = array_member(article, "paragraphs");
    if (!paragraphs) continue;
    for (const json& p : *paragraphs) {
      const std::string* context = string_member(p, "context");
      const json* qas = array_member(p, "qas");
      if (!context || !qas) {
        ++out->skipped;
        continue;
      }
      out->contexts.push_back(*context);
      for (const json& q : *qas) {
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
