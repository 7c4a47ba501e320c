// squad_eval_set.h — the questions of a SQuAD file for scoring, including
// SQuAD 2.0-style unanswerable ones (is_impossible), which parse_squad()
// (squad_file.h) skips.
#pragma once
#include <string>
#include <vector>

namespace amxqa::eval {

struct EvalQuestion {
  std::string id, question;
  size_t context = 0;                // index into EvalSet::contexts
  std::vector<std::string> answers;  // references; empty when impossible
  bool impossible = false;
};

struct EvalSet {
  std::vector<std::string> contexts;
  std::vector<EvalQuestion> questions;
  size_t skipped = 0;  // malformed entries, or answerable ones without a reference
};

// Reads FILE.json or FILE.json.gz; at most `limit` questions (0: all).
// Returns false with *error set on an unreadable or malformed file.
bool load_eval_set(const std::string& path, size_t limit, EvalSet* out, std::string* error);

}  // namespace amxqa::eval
