#include "finetune/finetune_eval.h"

#include <cmath>
#include <stdexcept>

#include "amxqa.hpp"
#include "calibration_pass.h"

namespace amxqa::train {
namespace {

struct Opened {
  amxqa::Model model;
  amxqa::Session session;
};

Opened open_model(const std::string& path) {
  Opened o;
  o.model = amxqa::Model::open_file(path);
  if (!o.model.ok())
    throw std::runtime_error(path + ": " + amxqa_status_name(o.model.status().code) + ": " + o.model.status().message);
  o.session = amxqa::Session::create(o.model, amxqa::default_options());
  if (!o.session.ok()) throw std::runtime_error(path + ": amxqa_session_init: " + o.session.status().message);
  return o;
}

}  // namespace

HeldOutPass held_out_pass(const std::string& model_path, const eval::EvalSet& set) {
  Opened o = open_model(model_path);
  HeldOutPass p;
  const amxqa_model_info info = o.model.info();
  p.model_threshold = info.no_answer_threshold;
  p.calibrated = info.calibrated != 0;
  p.method = info.calibration_method;
  p.items = eval::calibration_pass(o.session, set, {}, &p.failures);
  return p;
}

HeldOutScore score_at(const HeldOutPass& pass, float threshold) {
  return {eval::score_threshold(pass.items, threshold), eval::no_answer_auc(pass.items)};
}

void print_score_header(std::FILE* out) {
  std::fprintf(out, "  %-28s %6s %6s %7s %7s %9s %9s %6s %10s\n", "", "EM", "F1", "HasEM", "HasF1", "NoAnsAcc",
               "refused", "AUC", "threshold");
}

void print_score(std::FILE* out, const std::string& label, const HeldOutScore& s) {
  const eval::SweepPoint& p = s.at;
  char auc[16], nan[16], t[24];
  if (std::isnan(s.auc)) std::snprintf(auc, sizeof auc, "-");
  else std::snprintf(auc, sizeof auc, "%.3f", s.auc);
  if (p.n_no) std::snprintf(nan, sizeof nan, "%.1f%%", p.no_answer_accuracy);
  else std::snprintf(nan, sizeof nan, "-");
  std::snprintf(t, sizeof t, "%+.3f", double(p.threshold));
  std::fprintf(out, "  %-28s %6.2f %6.2f %7.2f %7.2f %9s %8.1f%% %6s %10s\n", label.c_str(), p.em, p.f1, p.has_em,
               p.has_f1, nan, p.over_refusal, auc, t);
}

std::vector<std::string> answers_at(const std::string& model_path, const eval::EvalSet& set,
                                    const std::vector<size_t>& indices, float threshold) {
  Opened o = open_model(model_path);
  o.session.set_threshold(threshold);
  std::vector<std::string> out;
  amxqa::Answer a;
  for (size_t i : indices) {
    const eval::EvalQuestion& q = set.questions[i];
    if (o.session.answer(q.question, set.contexts[q.context], &a) != AMXQA_OK) out.push_back("(error)");
    else out.push_back(a.abstained ? "(abstained)" : a.text);
  }
  return out;
}

}  // namespace amxqa::train
