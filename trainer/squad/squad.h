// squad.h — SQuAD v1.1 files in memory (train and the open dev split).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace amxqa::train {

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

// Parses SQuAD JSON. Structure errors throw std::runtime_error; questions
// without answers or with non-string fields are skipped, never trusted.
std::vector<SquadArticle> parse_squad(const std::string& json);
// Reads a .json or .json.gz file.
std::vector<SquadArticle> load_squad(const std::string& path);

size_t count_questions(const std::vector<SquadArticle>& articles);

}  // namespace amxqa::train
