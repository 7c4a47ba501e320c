// squad_em.cpp — answers the questions of a SQuAD-format file with the RAII
// wrapper (amxqa.hpp) and prints the running exact match as it goes.
// SQuAD reading and scoring reuse the project's JSON reader and the standard
// SQuAD normalisation (trainer/squad/), as the amxqa CLI does.
//
//   amxqa-sample-cpp-squad MODEL FILE.json[.gz] [LIMIT]
#include <amxqa.hpp>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <vector>

#include "data/gz_text.h"
#include "squad/json.h"
#include "squad/squad_metrics.h"

namespace {

using amxqa::train::JsonValue;

struct Question {
  std::string question;
  const std::string* context;
  std::vector<std::string> answers;  // empty: unanswerable, the right answer is to abstain
};

std::vector<Question> read_questions(const JsonValue& root, size_t limit) {
  std::vector<Question> out;
  const JsonValue* data = root.get("data");
  if (!data || !data->is_array()) return out;
  for (const JsonValue& article : data->arr) {
    const JsonValue* paragraphs = article.get("paragraphs");
    if (!paragraphs || !paragraphs->is_array()) continue;
    for (const JsonValue& p : paragraphs->arr) {
      const JsonValue* context = p.get("context");
      const JsonValue* qas = p.get("qas");
      if (!context || !context->is_string() || !qas || !qas->is_array()) continue;
      for (const JsonValue& q : qas->arr) {
        const JsonValue* text = q.get("question");
        if (!text || !text->is_string()) continue;
        Question item{text->str, &context->str, {}};
        if (const JsonValue* answers = q.get("answers"); answers && answers->is_array())
          for (const JsonValue& a : answers->arr)
            if (const JsonValue* t = a.get("text"); t && t->is_string() && !t->str.empty())
              item.answers.push_back(t->str);
        out.push_back(std::move(item));
        if (limit && out.size() == limit) return out;
      }
    }
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3 || argc > 4) {
    std::fprintf(stderr, "usage: %s MODEL FILE.json[.gz] [LIMIT]\n", argv[0]);
    return 2;
  }
  const size_t limit = argc == 4 ? std::strtoull(argv[3], nullptr, 10) : 0;
  JsonValue root;
  try {
    root = amxqa::train::parse_json(amxqa::train::read_gz(argv[2]));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: %s\n", argv[2], e.what());
    return 1;
  }
  const std::vector<Question> questions = read_questions(root, limit);
  if (questions.empty()) {
    std::fprintf(stderr, "%s: no questions\n", argv[2]);
    return 1;
  }

  amxqa::Model model = amxqa::Model::open_file(argv[1]);
  if (!model.ok()) {
    std::fprintf(stderr, "%s: %s\n", argv[1], model.status().message.c_str());
    return 1;
  }
  amxqa::Session session = amxqa::Session::create(model);
  if (!session.ok()) {
    std::fprintf(stderr, "session: %s\n", session.status().message.c_str());
    return 1;
  }

  amxqa::Answer a;
  double em_sum = 0;
  size_t n = 0;
  for (const Question& q : questions) {
    if (session.answer(q.question, *q.context, &a) != AMXQA_OK) {
      std::fprintf(stderr, "skipped (%s): %s\n", a.status.name(), q.question.c_str());
      continue;
    }
    const std::string prediction = a.abstained ? "" : a.text;
    const double em = q.answers.empty() ? (prediction.empty() ? 1.0 : 0.0)
                                        : amxqa::train::best_exact_match(prediction, q.answers);
    em_sum += em;
    ++n;
    std::printf("[%3zu] EM so far %5.1f%%  %s  Q: %s  A: %s\n", n, 100.0 * em_sum / n, em > 0 ? "hit " : "miss",
                q.question.c_str(), a.abstained ? "(no answer)" : a.text.c_str());
  }
  std::printf("exact match %.2f%% over %zu questions (%s)\n", n ? 100.0 * em_sum / n : 0.0, n,
              amxqa_isa_name(session.isa()));
  return n == questions.size() ? 0 : 1;
}
