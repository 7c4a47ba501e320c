// eval_qa.h — SQuAD scoring of a model FILE through the public C API:
//   EM / F1       extractive sessions on answerable dev questions (standard normalisation)
//   over-refusal  share of those answerable questions the model abstained on
//   abstention    share of made-up unanswerable pairs, half as many as the questions asked (the question with another
//                 paragraph of its article holding none of its answers) abstained on
//   stop rate     share of free-mode generations on the answerable prompts that
//                 end with EOT before the 32-token cap (paper round 1)
//   EOT share     share of the extractive (shipped) answers that ended on EOT,
//                 not at the token cap or the passage's end
// Questions are taken evenly spaced over the file when `limit` is smaller.
#pragma once
#include <cstdio>
#include <string>
#include <vector>

#include "probes/probes.h"
#include "report/metrics_log.h"
#include "squad_file.h"
#include "stages/capi_model.h"

namespace amxqa::train {

struct QaEvalOptions {
  size_t limit = 500;        // answerable questions (0 = all)
  size_t unanswerable = 0;   // made-up unanswerable pairs (0 = half the questions asked)
  size_t stop_limit = 200;   // free-mode prompts for the stop rate
  size_t show = 10;          // generations printed next to the score
  uint64_t seed = 1;
  bool use_vocab_mask = true;
};

struct QaSample {
  std::string question, gold, prediction;
  bool abstained = false, answerable = true;
};

struct QaEval {
  size_t n = 0, n_unanswerable = 0, n_stop = 0, errors = 0;
  double em = 0, f1 = 0, over_refusal = 0, abstention = 0, stop_rate = 0, eot_share = 0;
  double seconds = 0, ms_per_answer = 0;
  std::vector<QaSample> samples;
};

QaEval evaluate_qa(CapiModel& model, const std::vector<eval::SquadArticle>& dev, const QaEvalOptions& opt);
void print_qa_eval(const QaEval& e, std::FILE* out);
LogLine qa_eval_json(const QaEval& e);

// Probes through the C API in free mode (question + passage QA form).
std::vector<ProbeResult> capi_probes(CapiModel& model, uint64_t seed, size_t items);
void print_probes(const std::vector<ProbeResult>& r, std::FILE* out);
LogLine probes_json(const std::vector<ProbeResult>& r);

}  // namespace amxqa::train
