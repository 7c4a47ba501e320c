// test_shipped_quality.cpp — the shipped default model on all of
// dev-v2.0-calib (real SQuAD 2.0 questions, half of them unanswerable),
// through the public C++ API and the same pass `amxqa calibrate` makes
// (sdk/eval/calibration_pass.h). The floors are the shipped model's own
// figures (v2.2-i8: EM 26.78 at its threshold, margin ROC AUC 0.579, 14.9%
// over-refusal), rounded down, so a runtime, eval or model change that makes
// it worse fails here. They are NOT the product's goal: a model worth its
// no-answer decision beats the constant "no answer" (EM 47.9 here) with an
// AUC of 0.75 or more (the model-v3 issue); the test prints both beside the
// figures so the gap stays visible, and a model that closes it raises them.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <string>

#include "amxqa.hpp"
#include "calibration_pass.h"
#include "no_answer_sweep.h"
#include "squad_eval_set.h"

TEST_SUITE("slow") {

TEST_CASE("the shipped model on dev-v2.0-calib: no worse than shipped (EM, margin AUC, over-refusal)") {
  if (const char* env = std::getenv("AMXQA_DEFAULT_MODEL_PATH"); env && *env) {
    MESSAGE("AMXQA_DEFAULT_MODEL_PATH is set: these floors are the shipped model's; skipped");
    return;
  }
  const std::string data = std::string(AMXQA_SOURCE_DIR) + "/../shared/data/squad/dev-v2.0-calib.json.gz";
  if (!std::ifstream(data)) {
    MESSAGE("shared data not found; skipped");
    return;
  }
  amxqa::eval::EvalSet set;
  std::string error;
  REQUIRE_MESSAGE(amxqa::eval::load_eval_set(data, 0, &set, &error), error);
  amxqa::Model model = amxqa::Model::open_file(std::string(AMXQA_SOURCE_DIR) + "/sdk/models/default.amxqa");
  REQUIRE(model.ok());
  amxqa::Session session = amxqa::Session::create(model, amxqa::default_options());
  REQUIRE(session.ok());
  amxqa_model_info info = amxqa_model_info_init();
  REQUIRE(amxqa_model_get_info(model.get(), &info) == AMXQA_OK);

  size_t failures = 0;
  const auto items = amxqa::eval::calibration_pass(session, set, {}, &failures);
  CHECK(failures == 0);
  const amxqa::eval::SweepPoint at_model = amxqa::eval::score_threshold(items, info.no_answer_threshold);
  const double constant_em = 100.0 * double(at_model.n_no) / double(at_model.n_no + at_model.n_has);
  const double auc = amxqa::eval::no_answer_auc(items);
  MESSAGE("EM " << at_model.em << " / F1 " << at_model.f1 << " at threshold " << info.no_answer_threshold
                << " (constant no-answer " << constant_em << "); no-answer AUC " << auc << "; over-refusal "
                << at_model.over_refusal << "%");
  CHECK(at_model.n_no > 600);  // the whole file: 705 unanswerable of 1,471
  CHECK(at_model.em >= 26.0);
  CHECK(auc >= 0.57);
  CHECK(at_model.over_refusal <= 15.5);
  MESSAGE("goal: EM >= " << constant_em << " (constant no-answer) and AUC >= 0.75");
  // Probabilities are probabilities.
  amxqa::Answer a;
  for (size_t i = 0; i < set.questions.size(); i += 97) {
    REQUIRE(session.answer(set.questions[i].question, set.contexts[set.questions[i].context], &a) == AMXQA_OK);
    CHECK(a.probability >= 0.f);
    CHECK(a.probability <= 1.f);
  }
}

}  // TEST_SUITE
