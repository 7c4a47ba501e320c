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

std::vector<std::string> score_cells(const HeldOutScore& s) {
  const eval::SweepPoint& p = s.at;
  auto fmt = [](const char* f, double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, f, v);
    return std::string(buf);
  };
  return {fmt("%.2f", p.em),
          fmt("%.2f", p.f1),
          fmt("%.2f", p.has_em),
          fmt("%.2f", p.has_f1),
          p.n_no ? fmt("%.1f%%", p.no_answer_accuracy) : "-",
          fmt("%.1f%%", p.over_refusal),
          std::isnan(s.auc) ? "-" : fmt("%.3f", s.auc),
          fmt("%+.3f", double(p.threshold))};
}

void print_score(std::FILE* out, const std::string& label, const HeldOutScore& s) {
  const std::vector<std::string> c = score_cells(s);
  std::fprintf(out, "  %-28s %6s %6s %7s %7s %9s %9s %6s %10s\n", label.c_str(), c[0].c_str(), c[1].c_str(),
               c[2].c_str(), c[3].c_str(), c[4].c_str(), c[5].c_str(), c[6].c_str(), c[7].c_str());
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
