// squad_file.h — SQuAD files in memory (v1.1 train and dev, and the
// answerable questions of v2.0 files), read with nlohmann-json. Shared by the
// trainer (its training and evaluation data), the CLI and the tests; for
// scoring with unanswerable questions see squad_eval_set.h.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace amxqa::eval {

struct SquadQa {
  std::string id, question;
  std::vector<std::string> answers;      // reference texts (dev has several)
  std::vector<int64_t> answer_starts;    // byte offsets as given (-1 if absent)
};
struct SquadParagraph {
  std::string context;
  std::vector<SquadQa> qas;
};
struct SquadArticle {
  std::string title;
  std::vector<SquadParagraph> paragraphs;
};

// Parses SQuAD JSON. Malformed JSON and a missing "data" array throw
// std::runtime_error; questions without answers (unanswerable ones included)
// or with fields of the wrong type are skipped, never trusted.
std::vector<SquadArticle> parse_squad(const std::string& json);
// Reads a .json or .json.gz file.
std::vector<SquadArticle> load_squad(const std::string& path);

size_t count_questions(const std::vector<SquadArticle>& articles);

}  // namespace amxqa::eval
