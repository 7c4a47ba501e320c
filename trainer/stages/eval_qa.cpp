#include "stages/eval_qa.h"

#include <algorithm>
#include <chrono>

#include "squad/squad_examples.h"
#include "squad_metrics.h"

namespace amxqa::train {
namespace {

struct QaRef {
  const eval::SquadParagraph* para;
  const eval::SquadQa* qa;
};

template <class T>
std::vector<T> evenly(const std::vector<T>& all, size_t limit) {
  if (limit == 0 || limit >= all.size()) return all;
  std::vector<T> out;
  for (size_t i = 0; i < limit; ++i) out.push_back(all[i * all.size() / limit]);
  return out;
}

std::string one_line(std::string s, size_t max = 60) {
  for (char& c : s)
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  if (s.size() > max) s = s.substr(0, max - 3) + "...";
  return s;
}

}  // namespace

QaEval evaluate_qa(CapiModel& model, const std::vector<eval::SquadArticle>& dev, const QaEvalOptions& opt) {
  auto t0 = std::chrono::steady_clock::now();
  QaEval e;
  std::vector<QaRef> all;
  for (const auto& a : dev)
    for (const auto& p : a.paragraphs)
      for (const auto& q : p.qas) all.push_back({&p, &q});
  std::vector<QaRef> chosen = evenly(all, opt.limit);

  size_t abstained = 0, ended_on_eot = 0, shown_every = std::max<size_t>(1, chosen.size() / std::max<size_t>(1, opt.show));
  for (size_t i = 0; i < chosen.size(); ++i) {
    const QaRef& r = chosen[i];
    CapiAnswer a = model.answer(r.qa->question, r.para->context, true, opt.use_vocab_mask);
    if (a.status != AMXQA_OK) {
      ++e.errors;  // counted as wrong: the shipped model could not answer it
      ++e.n;
      continue;
    }
    ++e.n;
    e.em += eval::best_exact_match(a.text, r.qa->answers);
    e.f1 += eval::best_f1(a.text, r.qa->answers);
    abstained += a.info.abstained;
    ended_on_eot += !a.info.abstained && a.info.stopped_on_eot;
    if (i % shown_every == 0 && e.samples.size() < opt.show)
      e.samples.push_back({r.qa->question, r.qa->answers[0], a.text, a.info.abstained != 0, true});
  }
  if (e.n) {
    e.em = 100.0 * e.em / e.n;
    e.f1 = 100.0 * e.f1 / e.n;
    e.over_refusal = 100.0 * abstained / e.n;
    if (abstained < e.n) e.eot_share = 100.0 * ended_on_eot / (e.n - abstained);
  }
  e.ms_per_answer = e.n ? std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count() / e.n : 0;

  // Made-up unanswerable pairs from the same dev articles.
  std::vector<AbstainPair> pairs = evenly(abstain_pairs(dev, opt.seed), opt.unanswerable ? opt.unanswerable : std::max<size_t>(1, chosen.size() / 2));
  size_t unans_abstained = 0;
  for (const AbstainPair& p : pairs) {
    const auto& art = dev[p.article];
    const eval::SquadQa& qa = art.paragraphs[p.paragraph].qas[p.qa];
    CapiAnswer a = model.answer(qa.question, art.paragraphs[p.other].context, true, opt.use_vocab_mask);
    ++e.n_unanswerable;
    if (a.status != AMXQA_OK) {
      ++e.errors;
      continue;
    }
    unans_abstained += a.info.abstained;
    if (e.samples.size() < opt.show + 2 && e.n_unanswerable <= 2)
      e.samples.push_back({qa.question, "(unanswerable)", a.text, a.info.abstained != 0, false});
  }
  if (e.n_unanswerable) e.abstention = 100.0 * unans_abstained / e.n_unanswerable;

  // Stop-on-EOT in free mode.
  std::vector<QaRef> stop = evenly(chosen, opt.stop_limit);
  size_t stopped = 0;
  for (const QaRef& r : stop) {
    CapiAnswer a = model.answer(r.qa->question, r.para->context, false, opt.use_vocab_mask);
    ++e.n_stop;
    if (a.status != AMXQA_OK) {
      ++e.errors;
      continue;
    }
    stopped += a.info.stopped_on_eot;
  }
  if (e.n_stop) e.stop_rate = 100.0 * stopped / e.n_stop;
  e.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return e;
}

void print_qa_eval(const QaEval& e, std::FILE* out) {
  std::fprintf(out, "  %-40s | %-24s | %-24s | %s\n", "question", "gold", "prediction", "abstained");
  for (const QaSample& s : e.samples)
    std::fprintf(out, "  %-40s | %-24s | %-24s | %s\n", one_line(s.question, 40).c_str(),
                 one_line(s.gold, 24).c_str(), one_line(s.prediction, 24).c_str(), s.abstained ? "yes" : "no");
  std::fprintf(out,
               "EM %.2f  F1 %.2f  (n=%zu)   over-refusal %.1f%%   abstention on unanswerable %.1f%% (n=%zu)   "
               "stop-on-EOT (free mode) %.1f%% (n=%zu)   extractive answers ending on EOT %.1f%%   errors %zu   "
               "%.1f ms/answer\n",
               e.em, e.f1, e.n, e.over_refusal, e.abstention, e.n_unanswerable, e.stop_rate, e.n_stop, e.eot_share,
               e.errors, e.ms_per_answer);
}

LogLine qa_eval_json(const QaEval& e) {
  LogLine j = {{"em", e.em},
               {"f1", e.f1},
               {"n", e.n},
               {"over_refusal", e.over_refusal},
               {"abstention", e.abstention},
               {"n_unanswerable", e.n_unanswerable},
               {"stop_rate", e.stop_rate},
               {"n_stop", e.n_stop},
               {"eot_share", e.eot_share},
               {"errors", e.errors},
               {"eval_seconds", e.seconds},
               {"ms_per_answer", e.ms_per_answer}};
  LogLine samples = LogLine::array();
  for (const QaSample& s : e.samples)
    samples.push_back(
        {{"question", s.question}, {"gold", s.gold}, {"prediction", s.prediction}, {"abstained", s.abstained}});
  j["samples"] = std::move(samples);
  return j;
}

std::vector<ProbeResult> capi_probes(CapiModel& model, uint64_t seed, size_t items) {
  return run_probes(make_probes(seed, items), [&](const ProbeItem& it) {
    CapiAnswer a = model.answer(it.question, it.passage, false, true);
    return a.status == AMXQA_OK ? a.text : std::string();
  });
}

void print_probes(const std::vector<ProbeResult>& r, std::FILE* out) {
  for (const ProbeResult& p : r) {
    std::fprintf(out, "probe %-10s accuracy %5.1f%%  chance %5.1f%%  (n=%zu)", p.name.c_str(), 100 * p.accuracy,
                 100 * p.chance, p.n);
    for (const auto& ex : p.examples) std::fprintf(out, "  [want '%s' got '%s']", ex.first.c_str(), one_line(ex.second, 16).c_str());
    std::fprintf(out, "\n");
  }
}

LogLine probes_json(const std::vector<ProbeResult>& r) {
  LogLine s = LogLine::object();
  for (const ProbeResult& p : r) s[p.name] = {{"accuracy", p.accuracy}, {"chance", p.chance}, {"n", p.n}};
  return s;
}

}  // namespace amxqa::train
