// test_no_answer_sweep.cpp — the threshold sweep (sdk/eval/no_answer_sweep.h)
// on hand-made items whose scores are known, and the thresholds file.
#include <doctest/doctest.h>

#include <cfloat>
#include <cmath>

#include "amxqa.h"
#include "no_answer_sweep.h"

using namespace amxqa::eval;

namespace {
// Two answerable questions (one right, one wrong) and two impossible ones.
std::vector<CalibrationItem> items() {
  return {{-2.f, false, 1.0, 1.0}, {1.f, false, 0.0, 0.5}, {0.f, true, 0, 0}, {3.f, true, 0, 0}};
}
}  // namespace

TEST_SUITE("unit") {

TEST_CASE("score_threshold: abstain iff margin > threshold") {
  const SweepPoint never = score_threshold(items(), FLT_MAX);
  CHECK(never.em == doctest::Approx(25.0));   // only the right span
  CHECK(never.f1 == doctest::Approx(37.5));   // (1 + 0.5) / 4
  CHECK(never.no_answer_accuracy == 0.0);
  CHECK(never.abstain_rate == 0.0);
  const SweepPoint mid = score_threshold(items(), 0.5f);  // abstains on margins 1 and 3
  CHECK(mid.em == doctest::Approx(50.0));     // right span + impossible at 3
  CHECK(mid.has_f1 == doctest::Approx(50.0));
  CHECK(mid.no_answer_accuracy == doctest::Approx(50.0));
  CHECK(mid.over_refusal == doctest::Approx(50.0));
  const SweepPoint all = score_threshold(items(), -10.f);
  CHECK(all.em == doctest::Approx(50.0));
  CHECK(all.abstain_rate == doctest::Approx(100.0));
  CHECK(all.n_has == 2);
  CHECK(all.n_no == 2);
}

TEST_CASE("sweep: best F1 between the margins, under the over-refusal cap") {
  const Sweep s = sweep_thresholds(items(), 5);
  // Between -2 and 0 every impossible question and the wrong span abstain: F1 (1+1+1)/4.
  CHECK(s.best.f1 == doctest::Approx(75.0));
  CHECK(s.best.threshold > -2.f);
  CHECK(s.best.threshold < 0.f);
  CHECK(s.steps.size() == 5);
  CHECK(s.steps.back().threshold == FLT_MAX);
  // Capped at 0% over-refusal the right answer may not be refused, nor the wrong one.
  const Sweep capped = sweep_thresholds(items(), 5, 0.0);
  CHECK(capped.best.over_refusal == 0.0);
  CHECK(capped.best.threshold > 1.f);
  // Margins of +inf (no start allowed) always abstain and never make a candidate.
  std::vector<CalibrationItem> with_inf = items();
  with_inf.push_back({INFINITY, true, 0, 0});
  CHECK(score_threshold(with_inf, FLT_MAX).no_answer_accuracy == doctest::Approx(100.0 / 3));
}

TEST_CASE("no-answer ROC AUC and the best no-answer accuracy under an over-refusal cap") {
  // Unanswerable margins 0 and 3 against answerable -2 and 1: 3 of the 4 pairs ordered.
  CHECK(no_answer_auc(items()) == doctest::Approx(0.75));
  CHECK(no_answer_auc({{1.f, false, 0, 0}, {1.f, true, 0, 0}}) == doctest::Approx(0.5));  // a tie counts half
  CHECK(no_answer_auc({{-1.f, false, 0, 0}, {INFINITY, true, 0, 0}}) == doctest::Approx(1.0));
  CHECK(std::isnan(no_answer_auc({{1.f, false, 0, 0}})));
  // Over-refusal <= 50%: abstain above -2 catches both unanswerable ones.
  CHECK(best_no_answer_accuracy(items(), 50.0).no_answer_accuracy == doctest::Approx(100.0));
  // No answerable question refused: only the margin-3 one.
  const SweepPoint strict = best_no_answer_accuracy(items(), 0.0);
  CHECK(strict.no_answer_accuracy == doctest::Approx(50.0));
  CHECK(strict.over_refusal == 0.0);
  const Sweep s = sweep_thresholds(items(), 3);
  CHECK(s.auc == doctest::Approx(0.75));
  CHECK(s.best_no_answer_at_20.over_refusal <= 20.0);
}

TEST_CASE("thresholds file: round trip and clear errors") {
  const Sweep s = sweep_thresholds(items(), 3);
  float t = 0.f;
  std::string error, method;
  REQUIRE(parse_threshold_json(sweep_json(s, "m.amxqa", "d.json", "best F1"), &t, &error, &method));
  CHECK(t == s.best.threshold);
  CHECK(method == "best F1");
  for (const char* bad : {"", "{", "[]", "{\"best\": 1}", "{\"best\": {\"threshold\": \"1\"}}", "{\"steps\": []}"}) {
    CAPTURE(bad);
    error.clear();
    CHECK_FALSE(parse_threshold_json(bad, &t, &error));
    CHECK_FALSE(error.empty());
  }
  REQUIRE(parse_threshold_json("{\"best\": {\"threshold\": 1e300}}", &t, &error));
  CHECK(t == FLT_MAX);  // clamped to a float: never abstains
  CHECK(describe_choice("d.json", 100) == "best F1 on d.json");
  CHECK(describe_choice("d.json", 15) == "best F1 with over-refusal <= 15% on d.json");
  CHECK(describe_choice("dev-v2.0-calib.json.gz", 15).size() < sizeof(amxqa_model_info{}.calibration_method));
}

}  // TEST_SUITE
