#include "squad_metrics.h"

#include <algorithm>
#include <cctype>
#include <map>

namespace amxqa::eval {
namespace {

std::vector<std::string> split_ws(const std::string& s) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s) {
    if (std::isspace(static_cast<unsigned char>(c))) {
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

}  // namespace

std::string normalize_answer(const std::string& s) {
  // lower → remove punctuation → remove articles → fix white space, in the
  // official script's order (articles are removed as whole words).
  std::string t;
  for (char c : s) {
    unsigned char u = static_cast<unsigned char>(c);
    if (u < 0x80 && std::ispunct(u)) continue;
    t += (u < 0x80) ? static_cast<char>(std::tolower(u)) : c;
  }
  std::string out;
  for (const std::string& w : split_ws(t)) {
    if (w == "a" || w == "an" || w == "the") continue;
    if (!out.empty()) out += ' ';
    out += w;
  }
  return out;
}

double exact_match(const std::string& prediction, const std::string& reference) {
  return normalize_answer(prediction) == normalize_answer(reference) ? 1.0 : 0.0;
}

double f1_score(const std::string& prediction, const std::string& reference) {
  std::vector<std::string> p = split_ws(normalize_answer(prediction));
  std::vector<std::string> r = split_ws(normalize_answer(reference));
  // As the official v1.1 script: no common token (also both empty) scores 0.
  if (p.empty() || r.empty()) return 0.0;
  std::map<std::string, int> counts;
  for (const auto& w : r) ++counts[w];
  int same = 0;
  for (const auto& w : p) {
    auto it = counts.find(w);
    if (it != counts.end() && it->second > 0) {
      --it->second;
      ++same;
    }
  }
  if (same == 0) return 0.0;
  double precision = double(same) / p.size(), recall = double(same) / r.size();
  return 2 * precision * recall / (precision + recall);
}

double best_exact_match(const std::string& prediction, const std::vector<std::string>& refs) {
  double best = 0;
  for (const auto& r : refs) best = std::max(best, exact_match(prediction, r));
  return best;
}

double best_f1(const std::string& prediction, const std::vector<std::string>& refs) {
  double best = 0;
  for (const auto& r : refs) best = std::max(best, f1_score(prediction, r));
  return best;
}

}  // namespace amxqa::eval
