// The calibrate stage: chooses the shipped model's default no-answer
// threshold (schemas/MODEL.md "No-answer decision") on the recipe's
// calibration.data, a SQuAD 2.0-format file with unanswerable questions
// (dev-v2.0-calib, never training data), through the public C++ API and the
// same sweep as `amxqa calibrate` (sdk/eval/no_answer_sweep.h), then writes
// the exported file again with the threshold in its Calibration table.
// Output: calibration.json (the thresholds file `--threshold-file` reads);
// make_model_spec() carries it into every later export (eval's included).
#include <cmath>
#include <cstdio>
#include <fstream>

#include "amxqa.hpp"
#include "no_answer_sweep.h"
#include "squad/squad_metrics.h"
#include "squad_eval_set.h"
#include "stages/export_model.h"
#include "stages/stages.h"
#include "stages/train_loop.h"

namespace amxqa::train {

void stage_calibrate(RunContext& ctx) {
  const std::string out = ctx.out(kCalibrationFile);
  const std::string data = ctx.recipe.path("calibration.data");
  if (data.empty()) {
    std::fprintf(stderr, "[calibrate] no calibration.data in the recipe: threshold stays 0\n");
    return;
  }
  if (file_exists(out)) {
    std::fprintf(stderr, "[calibrate] %s exists: skipped\n", out.c_str());
    return;
  }
  const std::string path = ctx.out(ctx.cfg.model_file);
  const double max_refusal = ctx.recipe.number("calibration.max_over_refusal", 100.0);
  eval::EvalSet set;
  std::string error;
  if (!eval::load_eval_set(data, 0, &set, &error)) throw std::runtime_error("calibration.data: " + error);

  amxqa::Model model = amxqa::Model::open_file(path);
  if (!model.ok()) throw std::runtime_error(path + ": " + model.status().message);
  amxqa_session_options o = amxqa::default_options();
  o.override_threshold = 1;  // every span and margin: the sweep decides abstention
  o.no_answer_threshold = INFINITY;
  amxqa::Session session = amxqa::Session::create(model, o);
  if (!session.ok()) throw std::runtime_error("calibrate: " + session.status().message);

  std::vector<eval::CalibrationItem> items;
  amxqa::Answer a;
  for (const eval::EvalQuestion& q : set.questions) {
    eval::CalibrationItem it;
    it.impossible = q.impossible;
    it.margin = INFINITY;  // a failed answer counts as an abstention
    if (session.answer(q.question, set.contexts[q.context], &a) == AMXQA_OK) {
      it.margin = a.no_answer_margin;
      if (!q.impossible && !a.abstained) {
        it.em = best_exact_match(a.text, q.answers);
        it.f1 = best_f1(a.text, q.answers);
      }
    }
    items.push_back(it);
  }
  const eval::Sweep sweep = eval::sweep_thresholds(items, 12, max_refusal);
  const std::string name = data.substr(data.find_last_of('/') + 1);
  const std::string method = eval::describe_choice(sweep, name, max_refusal);
  std::fprintf(stderr, "[calibrate] threshold %g: %s\n", double(sweep.best.threshold), method.c_str());
  {
    std::ofstream f(out + ".tmp", std::ios::binary | std::ios::trunc);
    f << eval::sweep_json(sweep, path, name, method);
    if (!f) throw std::runtime_error("cannot write " + out);
  }
  if (std::rename((out + ".tmp").c_str(), out.c_str()) != 0) throw std::runtime_error("cannot write " + out);
  ctx.log->write(JsonLine().add("stage", "calibrate").add("threshold", double(sweep.best.threshold))
                     .add("em", sweep.best.em).add("f1", sweep.best.f1)
                     .add("no_answer_accuracy", sweep.best.no_answer_accuracy)
                     .add("over_refusal", sweep.best.over_refusal));
  // The same weights again, now with the Calibration table.
  session = amxqa::Session();
  model = amxqa::Model();
  write_final_model(ctx, path, {});
}

}  // namespace amxqa::train
