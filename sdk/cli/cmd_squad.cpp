// cmd_squad.cpp — `amxqa squad`: answers every question of a SQuAD file,
// writes the standard predictions file and prints EM/F1 (the official
// normalisation, sdk/eval/squad_metrics.h), the has-answer/no-answer
// split for SQuAD 2.0-style data, throughput and a few generations.
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "cli_common.h"
#include "commands.h"
#include "eval_run.h"
#include "progress_bar.h"
#include "json_members.h"
#include "squad_metrics.h"

namespace amxqa::cli {

using eval::EvalQuestion;
using eval::EvalSet;

namespace {

const char kHelp[] =
    "usage: amxqa squad [--model M] --data FILE.json[.gz] --out preds.json [--limit N]\n"
    "                   [--examples N] [--threshold T | --threshold-file F] [--isa ISA]\n"
    "                   [--max-passage-tokens N] [--split-words]\n\n"
    "Answers every question of a SQuAD v1.1/v2.0-format file and writes the standard\n"
    "predictions file {\"id\": \"answer\"} (\"\" for an abstention). Prints exact match\n"
    "and F1 (lower-case, no punctuation, no articles a/an/the, collapsed white space;\n"
    "best over the references), the has-answer / no-answer split when the file marks\n"
    "questions is_impossible, questions/s, and a few generations next to their gold.\n\n"
    "  --data FILE       SQuAD JSON, optionally gzip-compressed\n"
    "  --out FILE        where to write the predictions\n"
    "  --limit N         only the first N questions\n"
    "  --examples N      generations to show (default 10)\n"
    AMXQA_CLI_THRESHOLD_HELP
    AMXQA_CLI_SESSION_HELP;

struct Outcome {
  std::string prediction;
  float probability = 0.f, margin = 0.f;
  bool abstained = false, failed = false;
  double em = 0, f1 = 0;
};

struct Tally {
  size_t n = 0;
  double em = 0, f1 = 0;
  void add(const Outcome& o) {
    ++n;
    em += o.em;
    f1 += o.f1;
  }
  double em_pct() const { return n ? 100.0 * em / n : 0.0; }
  double f1_pct() const { return n ? 100.0 * f1 / n : 0.0; }
};

// An unanswerable question scores 1 exactly when the model abstains (SQuAD 2.0).
void score(const EvalQuestion& q, Outcome* o) {
  if (q.impossible) {
    o->em = o->f1 = o->prediction.empty() ? 1.0 : 0.0;
  } else {
    o->em = amxqa::eval::best_exact_match(o->prediction, q.answers);
    o->f1 = amxqa::eval::best_f1(o->prediction, q.answers);
  }
}

// One line of at most n bytes, never cut inside a UTF-8 sequence.
std::string clip(const std::string& s, size_t n) {
  std::string one_line;
  for (char c : s) one_line += (c == '\n' || c == '\t' || c == '\r') ? ' ' : c;
  if (one_line.size() <= n) return one_line;
  size_t cut = n - 3;
  while (cut > 0 && (static_cast<unsigned char>(one_line[cut]) & 0xC0) == 0x80) --cut;
  return one_line.substr(0, cut) + "...";
}

void print_examples(const EvalSet& set, const std::vector<Outcome>& outcomes, size_t want) {
  const size_t n = outcomes.size();
  if (want == 0 || n == 0) return;
  if (want > n) want = n;
  std::printf("\n%zu generations, spread over the %zu questions:\n", want, n);
  for (size_t k = 0; k < want; ++k) {
    const size_t i = k * n / want;
    const EvalQuestion& q = set.questions[i];
    const Outcome& o = outcomes[i];
    std::string gold = q.impossible ? "(no answer)" : q.answers.front();
    std::string pred = o.failed ? "(error)" : o.abstained ? "(abstained)" : o.prediction;
    std::printf("  Q: %s\n     gold: %-30s  prediction: %-30s  p %.2f  margin %+.2f  EM %.0f  F1 %.2f\n",
                clip(q.question, 100).c_str(), clip(gold, 30).c_str(), clip(pred, 30).c_str(),
                o.probability, o.margin, o.em, o.f1);
  }
}

// Written to PATH.tmp and renamed over PATH: a failed write leaves no
// (partial) predictions file.
bool write_predictions(const std::string& path, const EvalSet& set, const std::vector<Outcome>& outcomes,
                       std::string* error) {
  const std::string tmp = path + ".tmp";
  std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
  if (!f) {
    *error = "cannot write '" + tmp + "'";
    return false;
  }
  // The official format: {"id": "predicted text", ...}, "" for no answer.
  nlohmann::ordered_json predictions = nlohmann::ordered_json::object();
  for (size_t i = 0; i < outcomes.size(); ++i) predictions[set.questions[i].id] = outcomes[i].prediction;
  f << eval::dump_json(predictions, 1) << "\n";  // one id per line, as the SQuAD tools write
  f.close();
  if (!f || std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    *error = "error writing '" + path + "'";
    return false;
  }
  return true;
}

}  // namespace

int cmd_squad(int argc, char** argv, int first) {
  const char* cmd = "squad";
  App app("amxqa squad");
  SessionArgs session_args;
  add_session_options(app, &session_args);
  add_threshold_options(app, &session_args);
  std::string data, out;
  size_t limit = 0, examples = 10;
  app.add_option("--data", data)->required();
  app.add_option("--out", out)->required();
  app.add_unsigned("--limit", limit);
  app.add_unsigned("--examples", examples);
  if (int rc = parse_args(cmd, app, argc, argv, first, kHelp); rc >= 0) return rc;
  amxqa_session_options options;
  if (!session_options(cmd, session_args, &options)) return kExitUsage;

  EvalSet set;
  amxqa::Model model;
  amxqa::Session session;
  if (!open_eval_run(cmd, session_args, data, limit, out, options, &set, &model, &session)) return kExitFailure;

  std::vector<Outcome> outcomes(set.questions.size());
  Tally all, has_answer, no_answer;
  size_t abstentions = 0, failures = 0;
  float threshold = options.override_threshold ? options.no_answer_threshold : 0.f;
  double prefill_ms = 0, decode_ms = 0;
  std::string first_failure;
  amxqa::Answer a;
  ProgressBar bar(set.questions.size());
  for (size_t i = 0; i < set.questions.size(); ++i) {
    const EvalQuestion& q = set.questions[i];
    Outcome& o = outcomes[i];
    if (session.answer(q.question, set.contexts[q.context], &a) == AMXQA_OK) {
      o.prediction = a.abstained ? "" : a.text;
      o.abstained = a.abstained;
      o.probability = a.probability;
      o.margin = a.no_answer_margin;
      threshold = a.info.no_answer_threshold;
      prefill_ms += a.prefill_ms;
      decode_ms += a.decode_ms;
    } else {
      o.failed = true;  // scored as an empty prediction
      if (failures++ == 0) first_failure = q.id + ": " + answer_error(a.status, options);
    }
    abstentions += o.abstained;
    score(q, &o);
    all.add(o);
    (q.impossible ? no_answer : has_answer).add(o);
    char extra[64];
    std::snprintf(extra, sizeof extra, "EM %.1f  F1 %.1f", all.em_pct(), all.f1_pct());
    bar.update(i + 1, extra);
  }
  bar.finish();
  const double secs = bar.elapsed_seconds();

  std::string error;
  if (!write_predictions(out, set, outcomes, &error)) return fail(cmd, error);
  const size_t answered = all.n - failures;
  std::printf("model        %s\n", resolve_model_path(session_args).c_str());
  std::printf("data         %s: %zu questions (%zu has-answer, %zu no-answer)%s\n", data.c_str(),
              all.n, has_answer.n, no_answer.n,
              set.skipped ? (", " + std::to_string(set.skipped) + " entries skipped").c_str() : "");
  std::printf("exact match  %.2f\nF1           %.2f\n", all.em_pct(), all.f1_pct());
  if (no_answer.n > 0) {
    std::printf("HasAns       EM %.2f  F1 %.2f  (%zu)\n", has_answer.em_pct(), has_answer.f1_pct(), has_answer.n);
    std::printf("NoAns        EM %.2f  F1 %.2f  (%zu)\n", no_answer.em_pct(), no_answer.f1_pct(), no_answer.n);
  }
  std::printf("abstained    %zu (%.1f%%) at no-answer threshold %g%s\n", abstentions,
              all.n ? 100.0 * abstentions / all.n : 0.0, double(threshold),
              options.override_threshold ? " (--threshold)" : " (the model's)");
  std::printf("speed        %.1f questions/s on %s; mean prefill %.2f ms, decode %.2f ms\n",
              secs > 0 ? all.n / secs : 0.0, amxqa_isa_name(session.isa()),
              answered ? prefill_ms / answered : 0.0, answered ? decode_ms / answered : 0.0);
  std::printf("predictions  %s\n", out.c_str());
  if (failures)
    std::printf("errors       %zu questions failed (scored as empty); first: %s\n", failures, first_failure.c_str());
  print_examples(set, outcomes, examples);
  return kExitOk;
}

}  // namespace amxqa::cli
