// squad_em.cpp — answers the questions of a SQuAD-format file with the RAII
// wrapper (amxqa.hpp) and prints the running exact match as it goes.
// It uses only the installed API, nlohmann-json and zlib, so it builds outside
// the tree. Its match is strict (the answer equals a reference byte for byte);
// `amxqa squad` gives the official SQuAD scores (normalised EM and F1).
//
//   amxqa-sample-cpp-squad MODEL FILE.json[.gz] [LIMIT]
#include <amxqa.hpp>
#include <zlib.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace {

using nlohmann::json;

struct Question {
  std::string question, context;
  std::vector<std::string> answers;  // empty: unanswerable, the right answer is to abstain
};

// The whole file, gzip or plain (gzread reads both); false when unreadable.
bool read_file(const char* path, std::string* out) {
  gzFile f = gzopen(path, "rb");
  if (!f) return false;
  char buf[1 << 16];
  int n;
  while ((n = gzread(f, buf, sizeof buf)) > 0) out->append(buf, static_cast<size_t>(n));
  const bool ok = n == 0;
  gzclose(f);
  return ok;
}

// Members of the wrong type count as absent: the file is untrusted.
std::string string_or_empty(const json& v, const char* key) {
  if (!v.is_object()) return {};
  const auto it = v.find(key);
  return it != v.end() && it->is_string() ? it->get<std::string>() : std::string();
}

const json& array_or_empty(const json& v, const char* key) {
  static const json empty = json::array();
  if (!v.is_object()) return empty;
  const auto it = v.find(key);
  return it != v.end() && it->is_array() ? *it : empty;
}

std::vector<Question> read_questions(const json& root, size_t limit) {
  std::vector<Question> out;
  for (const json& article : array_or_empty(root, "data"))
    for (const json& p : array_or_empty(article, "paragraphs")) {
      const std::string context = string_or_empty(p, "context");
      for (const json& q : array_or_empty(p, "qas")) {
        Question item{string_or_empty(q, "question"), context, {}};
        if (item.question.empty() || context.empty()) continue;
        for (const json& a : array_or_empty(q, "answers"))
          if (std::string t = string_or_empty(a, "text"); !t.empty()) item.answers.push_back(std::move(t));
        out.push_back(std::move(item));
        if (limit && out.size() == limit) return out;
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
  std::string text;
  if (!read_file(argv[2], &text)) {
    std::fprintf(stderr, "%s: cannot read\n", argv[2]);
    return 1;
  }
  const json root = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (root.is_discarded()) {
    std::fprintf(stderr, "%s: not valid JSON\n", argv[2]);
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
    if (session.answer(q.question, q.context, &a) != AMXQA_OK) {
      std::fprintf(stderr, "skipped (%s): %s\n", a.status.name(), q.question.c_str());
      continue;
    }
    const std::string prediction = a.abstained ? "" : a.text;
    const bool hit = q.answers.empty() ? prediction.empty()
                                       : std::find(q.answers.begin(), q.answers.end(), prediction) != q.answers.end();
    const double em = hit ? 1.0 : 0.0;
    em_sum += em;
    ++n;
    std::printf("[%3zu] EM so far %5.1f%%  %s  Q: %s  A: %s\n", n, 100.0 * em_sum / n, em > 0 ? "hit " : "miss",
                q.question.c_str(), a.abstained ? "(no answer)" : a.text.c_str());
  }
  std::printf("exact match %.2f%% over %zu questions (%s)\n", n ? 100.0 * em_sum / n : 0.0, n,
              amxqa_isa_name(session.isa()));
  return n == questions.size() ? 0 : 1;
}
