// The calibrate stage: chooses the shipped model's default no-answer
// threshold (schemas/MODEL.md "No-answer decision") on the recipe's
// calibration.data, a SQuAD 2.0-format file with unanswerable questions
// (dev-v2.0-calib, never training data), through the public C++ API and the
// same sweep as `amxqa calibrate` (sdk/eval/no_answer_sweep.h), then writes
// the exported file again with the threshold in its Calibration table.
// Output: calibration.json (the thresholds file `--threshold-file` reads);
// make_model_spec() carries it into every later export (eval's included).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>

#include "amxqa.hpp"
#include "calibration_pass.h"
#include "report/reliability_svg.h"
#include "no_answer_sweep.h"
#include "squad_metrics.h"
#include "squad_eval_set.h"
#include "stages/export_model.h"
#include "stages/stages.h"
#include "stages/train_loop.h"

namespace amxqa::train {
namespace {

std::string cell(std::string s) {
  for (char& ch : s)
    if (ch == '|' || ch == '\n') ch = ' ';
  return s.size() > 60 ? s.substr(0, 57) + "..." : s;
}

// At the chosen threshold: the has-answer / no-answer split, the reliability
// plot (reported probability against the share right) and generations with
// their probability and margin, as the model card's section.
void write_calibration_card(RunContext& ctx, const eval::EvalSet& set, amxqa::Session& session,
                            const eval::Sweep& sweep, const std::string& name, const std::string& method) {
  const eval::SweepPoint& b = sweep.best;
  if (!session.set_threshold(b.threshold).ok()) throw std::runtime_error("calibrate: cannot set the threshold");
  std::vector<Judged> judged;
  std::string rows;
  amxqa::Answer a;
  const size_t n = set.questions.size(), show = std::min<size_t>(16, n);
  for (size_t i = 0; i < n; ++i) {
    const eval::EvalQuestion& q = set.questions[i];
    if (session.answer(q.question, set.contexts[q.context], &a) != AMXQA_OK) continue;
    const bool right = q.impossible ? a.abstained : !a.abstained && eval::best_exact_match(a.text, q.answers) > 0.5;
    judged.push_back({a.probability, right});
    if (i % (n / show) == 0 && rows.size() < 16 * 400) {
      char num[96];
      std::snprintf(num, sizeof num, " | %.2f | %+.2f | %s |\n", double(a.probability), double(a.no_answer_margin),
                    right ? "yes" : "no");
      rows += "| " + cell(q.question) + " | " + cell(q.impossible ? "(no answer)" : q.answers.front()) + " | " +
              cell(a.abstained ? "(abstained)" : a.text) + num;
    }
  }
  const std::vector<ReliabilityBin> bins = reliability_bins(judged, 10);
  std::ofstream(ctx.out(kReliabilityFile)) << render_reliability_svg(bins, "reliability on " + name);
  char buf[2048];
  std::snprintf(buf, sizeof buf,
                "## No-answer decision and confidence\n\n"
                "The model abstains when its no-answer margin exceeds **%.3f** (schemas/MODEL.md \"No-answer "
                "decision\"): %s. The threshold was chosen on these same questions, so the figures below "
                "flatter it; held-out SQuAD 2.0 articles will score lower.\n\n"
                "| on %s | EM | F1 | n |\n|---|---|---|---|\n"
                "| all | %.2f | %.2f | %zu |\n| has-answer | %.2f | %.2f | %zu |\n"
                "| no-answer (abstained) | %.2f | %.2f | %zu |\n\n"
                "Over-refusal (answerable questions abstained on) %.1f%%; abstained on %.1f%% of all.\n\n"
                "Whatever the threshold: the no-answer margin's ROC AUC is **%.3f** (0.5 is a coin), and "
                "the best no-answer accuracy with at most 20%% over-refusal is %.1f%% (threshold %.3f).\n\n"
                "Reliability (figure above): answers binned by their reported probability; expected "
                "calibration error %.1f%%.\n\n",
                double(b.threshold), method.c_str(), name.c_str(), b.em, b.f1, b.n_has + b.n_no, b.has_em, b.has_f1,
                b.n_has, b.no_answer_accuracy, b.no_answer_accuracy, b.n_no, b.over_refusal, b.abstain_rate,
                sweep.auc, sweep.best_no_answer_at_20.no_answer_accuracy,
                double(sweep.best_no_answer_at_20.threshold), expected_calibration_error(bins));
  std::string md = buf;
  md += "| confidence bin | answers | mean probability | right |\n|---|---|---|---|\n";
  for (const ReliabilityBin& r : bins) {
    std::snprintf(buf, sizeof buf, "| %.1f-%.1f | %zu | %.2f | %.1f%% |\n", r.lo, r.hi, r.n, r.mean_confidence,
                  100 * r.accuracy);
    md += buf;
  }
  md += "\nGenerations at this threshold, abstentions included (p: reported probability; margin: "
        "no-answer score minus the best start's):\n\n| question | gold | prediction | p | margin | right |\n"
        "|---|---|---|---|---|---|\n" + rows;
  std::ofstream(ctx.out(kCalibrationCardFile)) << md;
}

}  // namespace

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
  amxqa::Session session = amxqa::Session::create(model, amxqa::default_options());
  if (!session.ok()) throw std::runtime_error("calibrate: " + session.status().message);
  size_t failures = 0;
  const std::vector<eval::CalibrationItem> items = eval::calibration_pass(session, set, {}, &failures);
  if (failures) std::fprintf(stderr, "[calibrate] %zu questions failed (scored as abstentions)\n", failures);
  const eval::Sweep sweep = eval::sweep_thresholds(items, 12, max_refusal);
  const std::string name = data.substr(data.find_last_of('/') + 1);
  const std::string method = eval::describe_choice(name, max_refusal);
  const eval::SweepPoint& b = sweep.best;
  std::fprintf(stderr,
               "[calibrate] threshold %g (%s): %zu questions, EM %.1f / F1 %.1f, no-answer %.1f%%, over-refusal "
               "%.1f%%\n",
               double(b.threshold), method.c_str(), b.n_has + b.n_no, b.em, b.f1, b.no_answer_accuracy,
               b.over_refusal);
  {
    std::ofstream f(out + ".tmp", std::ios::binary | std::ios::trunc);
    f << eval::sweep_json(sweep, path, name, method);
    if (!f) throw std::runtime_error("cannot write " + out);
  }
  if (std::rename((out + ".tmp").c_str(), out.c_str()) != 0) throw std::runtime_error("cannot write " + out);
  ctx.log->write({{"stage", "calibrate"},
                  {"threshold", double(sweep.best.threshold)},
                  {"em", sweep.best.em},
                  {"f1", sweep.best.f1},
                  {"no_answer_accuracy", sweep.best.no_answer_accuracy},
                  {"over_refusal", sweep.best.over_refusal},
                  {"no_answer_auc", sweep.auc},
                  {"no_answer_accuracy_at_20", sweep.best_no_answer_at_20.no_answer_accuracy}});
  write_calibration_card(ctx, set, session, sweep, name, method);
  // The same weights again, now with the Calibration table.
  session = amxqa::Session();
  model = amxqa::Model();
  write_final_model(ctx, path, {});
}

}  // namespace amxqa::train
