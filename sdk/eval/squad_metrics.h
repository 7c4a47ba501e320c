// squad_metrics.h — the standard SQuAD v1.1 scoring: normalise (lower-case,
// drop ASCII punctuation, drop the articles a/an/the, collapse white space),
// exact match = any reference equal, F1 = best token-overlap F1 over the
// references. (The official script also drops Unicode punctuation via
// string.punctuation, which is ASCII only — same as here.)
#pragma once
#include <string>
#include <vector>

namespace amxqa::eval {

std::string normalize_answer(const std::string& s);
double exact_match(const std::string& prediction, const std::string& reference);
double f1_score(const std::string& prediction, const std::string& reference);
// Max over references (0 when there are none).
double best_exact_match(const std::string& prediction, const std::vector<std::string>& refs);
double best_f1(const std::string& prediction, const std::vector<std::string>& refs);

}  // namespace amxqa::eval
