// cmd_calibrate.cpp — `amxqa calibrate`: chooses the no-answer threshold on
// the user's own labelled SQuAD 2.0-format data (schemas/MODEL.md "No-answer
// decision"). One pass with the threshold at +inf gives every question's span
// and margin; eval/no_answer_sweep.h then scores each threshold from that.
#include <cmath>
#include <cstdio>
#include <fstream>

#include "calibration_pass.h"
#include "cli_common.h"
#include "commands.h"
#include "eval_run.h"
#include "no_answer_sweep.h"
#include "progress_bar.h"

namespace amxqa::cli {

namespace {

const char kHelp[] =
    "usage: amxqa calibrate [--model M] --data FILE.json[.gz] [--out thresholds.json]\n"
    "                       [--max-over-refusal PCT] [--limit N] [--steps N] [--isa ISA]\n"
    "                       [--max-passage-tokens N]\n\n"
    "Sweeps the no-answer threshold over a SQuAD v2.0-format file (questions marked\n"
    "is_impossible count as right only when the model abstains) and prints EM / F1,\n"
    "the has-answer scores, the no-answer accuracy and the abstention rate at each\n"
    "step, then the threshold with the best F1. --out writes them as JSON, which\n"
    "`amxqa answer|squad|shell|serve|batch --threshold-file` and the Python binding's\n"
    "Session(threshold_file=...) read.\n\n"
    "  --data FILE       SQuAD JSON (v2.0 for unanswerable questions), optionally gzip'd\n"
    "  --out FILE        where to write the thresholds JSON\n"
    "  --max-over-refusal PCT  best only among thresholds that abstain on at most PCT%\n"
    "                    of the answerable questions (default 15, the cap the shipped\n"
    "                    model was calibrated with; 100: no cap, best F1 whatever it refuses)\n"
    "  --limit N         only the first N questions\n"
    "  --steps N         rows of the printed table (default 12)\n"
    AMXQA_CLI_SESSION_HELP;

void print_point(const eval::SweepPoint& p, const char* mark) {
  char t[32];
  if (p.threshold >= 3e38f) std::snprintf(t, sizeof t, "never");
  else std::snprintf(t, sizeof t, "%+.3f", double(p.threshold));
  std::printf("  %9s  %6.2f  %6.2f  %7.2f  %7.2f  %8.1f%%  %8.1f%%  %7.1f%%%s\n", t, p.em, p.f1, p.has_em, p.has_f1,
              p.no_answer_accuracy, p.abstain_rate, p.over_refusal, mark);
}

}  // namespace

int cmd_calibrate(int argc, char** argv, int first) {
  const char* cmd = "calibrate";
  App app("amxqa calibrate");
  SessionArgs session_args;
  add_session_options(app, &session_args);
  std::string data, out;
  // Unconstrained best F1 on SQuAD 2.0-style data refuses most answerable
  // questions (abstaining is right on ~half of them); the shipped model's
  // recipe caps over-refusal at 15% (trainer/recipes, calibration.max_over_refusal).
  size_t limit = 0, steps = 12, max_refusal = 15;
  app.add_option("--data", data)->required();
  app.add_option("--out", out);
  app.add_unsigned("--limit", limit);
  app.add_option("--steps", steps)->check(CLI::PositiveNumber);
  app.add_option("--max-over-refusal", max_refusal)->check(CLI::Range(0, 100));
  if (int rc = parse_args(cmd, app, argc, argv, first, kHelp); rc >= 0) return rc;
  amxqa_session_options options;
  if (!session_options(cmd, session_args, &options)) return kExitUsage;

  eval::EvalSet set;
  amxqa::Model model;
  amxqa::Session session;
  if (!open_eval_run(cmd, session_args, data, limit, out, options, &set, &model, &session)) return kExitFailure;

  size_t failures = 0;
  ProgressBar bar(set.questions.size());
  const std::vector<eval::CalibrationItem> items =
      eval::calibration_pass(session, set, [&](size_t done) { bar.update(done, ""); }, &failures);
  bar.finish();

  const eval::Sweep sweep = eval::sweep_thresholds(items, steps, double(max_refusal));
  amxqa_model_info info = amxqa_model_info_init();
  amxqa_model_get_info(model.get(), &info);
  std::printf("model        %s (its threshold: %g%s)\n", resolve_model_path(session_args).c_str(),
              double(info.no_answer_threshold), info.calibrated ? "" : ", uncalibrated");
  std::printf("data         %s: %zu questions (%zu has-answer, %zu no-answer)%s\n", data.c_str(),
              items.size(), sweep.best.n_has, sweep.best.n_no,
              failures ? (", " + std::to_string(failures) + " failed (scored as abstentions)").c_str() : "");
  std::printf("\n  threshold      EM      F1   HasEM   HasF1  NoAnsAcc  abstained  refused\n");
  for (const eval::SweepPoint& p : sweep.steps) print_point(p, "");
  std::printf("  best F1%s:\n", max_refusal < 100 ? (" with over-refusal <= " + std::to_string(max_refusal) + "%").c_str() : "");
  print_point(sweep.best, "  <- best");
  std::printf("  best no-answer accuracy with over-refusal <= 20%%:\n");
  print_point(sweep.best_no_answer_at_20, "");
  std::printf("\nno-answer ROC AUC (margin): %.3f  (0.5: a coin; 1: every unanswerable question above every answerable one)\n",
              sweep.auc);
  std::printf("\nabstain iff no_answer_margin > threshold; use it with --threshold %g\n",
              double(sweep.best.threshold));
  if (!out.empty()) {
    std::ofstream f(out, std::ios::binary | std::ios::trunc);
    f << eval::sweep_json(sweep, resolve_model_path(session_args), data,
                          eval::describe_choice(data, double(max_refusal)));
    if (!f) return fail(cmd, "error writing '" + out + "'");
    std::printf("thresholds   %s (--threshold-file)\n", out.c_str());
  }
  return kExitOk;
}

}  // namespace amxqa::cli
