// finetune_data.h — a user's SQuAD file for `amxqa-train finetune`: read
// (v1.1 or v2.0, .json or .json.gz), checked, and split into the part trained
// on and the part held out for the before/after figures and the no-answer
// threshold. Every refusal is a std::runtime_error whose message names the
// file and, for a bad answer, the question.
#pragma once
#include <string>
#include <vector>

#include "squad_eval_set.h"
#include "squad_file.h"

namespace amxqa::train {

// Questions of a parsed file: answerable, and SQuAD 2.0 unanswerable
// (is_impossible) ones.
struct QuestionCounts {
  size_t articles = 0, paragraphs = 0, answerable = 0, unanswerable = 0;
  size_t total() const { return answerable + unanswerable; }
};
QuestionCounts count_squad(const std::vector<eval::SquadArticle>& articles);

// Reads the file with its unanswerable questions kept. Throws when it cannot
// be read or decompressed, is not SQuAD JSON, holds an answer whose text is
// not at its answer_start in the context (answer_start counts characters,
// as SQuAD's files do; an answer without one must occur in the context), or
// holds no usable question at all.
std::vector<eval::SquadArticle> load_finetune_squad(const std::string& path);

// A deterministic split by paragraph: of the paragraphs with questions, in
// file order, evenly spaced ones holding about `fraction` of them are held
// out (at least one, at least one kept), so every held-out question is on a
// passage the run never trained on. Throws when the file has fewer than two
// paragraphs with questions (pass --dev then).
struct FinetuneSplit {
  std::vector<eval::SquadArticle> train, held_out;
};
FinetuneSplit split_by_paragraph(const std::vector<eval::SquadArticle>& articles, double fraction);

// The articles' questions as a scoring set (squad_eval_set.h), unanswerable
// ones included, as the calibration pass reads them.
eval::EvalSet to_eval_set(const std::vector<eval::SquadArticle>& articles);

}  // namespace amxqa::train
