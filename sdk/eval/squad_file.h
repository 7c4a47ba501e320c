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
// A SQuAD 2.0 unanswerable question ("is_impossible": true): written to look
// answerable from its paragraph, often with a plausible wrong span.
struct SquadUnanswerable {
  std::string id, question;
  std::string provenance;                    // train-v2.0's placement certainty ("" if absent)
  std::vector<std::string> plausible;        // the wrong spans the writer aimed at
  std::vector<int64_t> plausible_starts;     // their byte offsets (-1 if absent)
};
struct SquadParagraph {
  std::string context;
  std::vector<SquadQa> qas;                  // answerable questions only
  std::vector<SquadUnanswerable> unanswerable;  // kept only when parse_squad is asked to
};
struct SquadArticle {
  std::string title;
  std::vector<SquadParagraph> paragraphs;
};

// Parses SQuAD JSON. Malformed JSON and a missing "data" array throw
// std::runtime_error; questions without answers or with fields of the wrong
// type are skipped, never trusted. With keep_unanswerable, questions marked
// "is_impossible": true go to SquadParagraph::unanswerable instead.
std::vector<SquadArticle> parse_squad(const std::string& json, bool keep_unanswerable = false);
// Reads a .json or .json.gz file.
std::vector<SquadArticle> load_squad(const std::string& path, bool keep_unanswerable = false);

size_t count_questions(const std::vector<SquadArticle>& articles);

}  // namespace amxqa::eval
