#include "no_answer_sweep.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>

namespace amxqa::eval {

SweepPoint score_threshold(const std::vector<CalibrationItem>& items, float t) {
  SweepPoint p;
  p.threshold = t;
  double em = 0, f1 = 0, has_em = 0, has_f1 = 0, no_ok = 0, abstained = 0, refused = 0;
  for (const CalibrationItem& it : items) {
    const bool abstain = it.margin > t;
    abstained += abstain;
    if (it.impossible) {
      ++p.n_no;
      no_ok += abstain;
      em += abstain;
      f1 += abstain;
    } else {
      ++p.n_has;
      refused += abstain;
      const double e = abstain ? 0.0 : it.em, f = abstain ? 0.0 : it.f1;
      em += e;
      f1 += f;
      has_em += e;
      has_f1 += f;
    }
  }
  const auto pct = [](double x, size_t n) { return n ? 100.0 * x / double(n) : 0.0; };
  p.em = pct(em, items.size());
  p.f1 = pct(f1, items.size());
  p.has_em = pct(has_em, p.n_has);
  p.has_f1 = pct(has_f1, p.n_has);
  p.no_answer_accuracy = pct(no_ok, p.n_no);
  p.abstain_rate = pct(abstained, items.size());
  p.over_refusal = pct(refused, p.n_has);
  return p;
}

namespace {
// Below every margin, between neighbouring margins, and FLT_MAX ("never"),
// ascending: every distinct set of abstentions once.
std::vector<float> candidate_thresholds(const std::vector<CalibrationItem>& items) {
  std::vector<float> m;
  for (const CalibrationItem& it : items)
    if (std::isfinite(it.margin)) m.push_back(it.margin);
  std::sort(m.begin(), m.end());
  m.erase(std::unique(m.begin(), m.end()), m.end());
  std::vector<float> candidates;
  if (!m.empty()) candidates.push_back(m.front() - 1.f);
  for (size_t i = 0; i + 1 < m.size(); ++i) candidates.push_back(0.5f * (m[i] + m[i + 1]));
  candidates.push_back(FLT_MAX);
  return candidates;
}
}  // namespace

double no_answer_auc(const std::vector<CalibrationItem>& items) {
  // Mann-Whitney U over the margins sorted once: each unanswerable question
  // beats the answerable ones below it and ties with those equal to it.
  std::vector<std::pair<float, bool>> v;
  for (const CalibrationItem& it : items)
    if (!std::isnan(it.margin)) v.emplace_back(it.margin, it.impossible);
  std::sort(v.begin(), v.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  double wins = 0, n_has = 0, n_no = 0;
  for (size_t i = 0; i < v.size();) {
    size_t j = i;
    double has = 0, no = 0;
    for (; j < v.size() && v[j].first == v[i].first; ++j) (v[j].second ? no : has) += 1;
    wins += no * (n_has + 0.5 * has);
    n_has += has;
    n_no += no;
    i = j;
  }
  return n_has > 0 && n_no > 0 ? wins / (n_has * n_no) : std::nan("");
}

SweepPoint best_no_answer_accuracy(const std::vector<CalibrationItem>& items, double max_over_refusal) {
  SweepPoint best = score_threshold(items, FLT_MAX);
  for (float t : candidate_thresholds(items)) {
    const SweepPoint p = score_threshold(items, t);
    if (p.over_refusal <= max_over_refusal && p.no_answer_accuracy > best.no_answer_accuracy) best = p;
  }
  return best;
}

Sweep sweep_thresholds(const std::vector<CalibrationItem>& items, size_t steps, double max_over_refusal) {
  const std::vector<float> candidates = candidate_thresholds(items);
  Sweep s;
  s.auc = no_answer_auc(items);
  s.best_no_answer_at_20 = best_no_answer_accuracy(items, 20.0);
  bool have = false;
  for (float t : candidates) {
    const SweepPoint p = score_threshold(items, t);
    if (p.over_refusal > max_over_refusal && t != FLT_MAX) continue;
    if (!have || p.f1 >= s.best.f1) s.best = p;  // ascending: ties keep the larger threshold
    have = true;
  }
  const size_t k = std::min(steps, candidates.size());
  for (size_t i = 0; i < k; ++i) {
    const size_t at = k == 1 ? candidates.size() - 1 : i * (candidates.size() - 1) / (k - 1);
    s.steps.push_back(score_threshold(items, candidates[at]));
  }
  return s;
}

namespace {
nlohmann::json point_json(const SweepPoint& p) {
  return {{"threshold", p.threshold},       {"em", p.em},
          {"f1", p.f1},                     {"has_answer_em", p.has_em},
          {"has_answer_f1", p.has_f1},      {"no_answer_accuracy", p.no_answer_accuracy},
          {"abstain_rate", p.abstain_rate}, {"over_refusal", p.over_refusal},
          {"has_answer", p.n_has},          {"no_answer", p.n_no}};
}
}  // namespace

std::string sweep_json(const Sweep& sweep, const std::string& model, const std::string& data,
                       const std::string& method) {
  nlohmann::json j;
  j["model"] = model;
  j["data"] = data;
  j["method"] = method;
  j["questions"] = sweep.best.n_has + sweep.best.n_no;
  j["best"] = point_json(sweep.best);
  if (std::isfinite(sweep.auc)) j["no_answer_auc"] = sweep.auc;  // NaN is not JSON
  j["best_no_answer_at_20"] = point_json(sweep.best_no_answer_at_20);
  j["steps"] = nlohmann::json::array();
  for (const SweepPoint& p : sweep.steps) j["steps"].push_back(point_json(p));
  return j.dump(2) + "\n";
}

bool parse_threshold_json(const std::string& text, float* threshold, std::string* error, std::string* method) {
  const nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) {
    *error = "not valid JSON";
    return false;
  }
  if (!j.is_object() || !j.contains("best") || !j["best"].is_object() || !j["best"].contains("threshold") ||
      !j["best"]["threshold"].is_number()) {
    *error = "expected {\"best\": {\"threshold\": NUMBER}} (the file `amxqa calibrate --out` writes)";
    return false;
  }
  const double t = j["best"]["threshold"].get<double>();
  if (!std::isfinite(t)) {
    *error = "best.threshold is not a finite number";
    return false;
  }
  *threshold = t > FLT_MAX ? FLT_MAX : t < -FLT_MAX ? -FLT_MAX : static_cast<float>(t);
  if (method) *method = j.contains("method") && j["method"].is_string() ? j["method"].get<std::string>() : "";
  return true;
}

std::string describe_choice(const std::string& data_name, double max_over_refusal) {
  char buf[160];
  if (max_over_refusal < 100.0)
    std::snprintf(buf, sizeof buf, "best F1 with over-refusal <= %g%% on %s", max_over_refusal, data_name.c_str());
  else
    std::snprintf(buf, sizeof buf, "best F1 on %s", data_name.c_str());
  return buf;
}

}  // namespace amxqa::eval
