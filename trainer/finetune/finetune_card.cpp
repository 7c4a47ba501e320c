#include "finetune/finetune_card.h"

#include <cstdio>

#include "report/metrics_log.h"

namespace amxqa::train {
namespace {

std::string cell(std::string s) {
  for (char& ch : s)
    if (ch == '|' || ch == '\n' || ch == '\r') ch = ' ';
  return s.size() > 70 ? s.substr(0, 67) + "..." : s;
}

std::string counts(const QuestionCounts& q) {
  return std::to_string(q.paragraphs) + " paragraphs, " + std::to_string(q.answerable) + " answerable and " +
         std::to_string(q.unanswerable) + " unanswerable questions";
}

std::string row(const char* label, const HeldOutScore& s) {
  std::string r = std::string("| ") + label;
  for (const std::string& c : score_cells(s)) r += " | " + c;
  return r + " |\n";
}

}  // namespace

std::string finetune_card_path(const std::string& model_out) {
  const std::string ext = ".amxqa";
  const bool has_ext = model_out.size() > ext.size() && model_out.compare(model_out.size() - ext.size(), ext.size(), ext) == 0;
  return (has_ext ? model_out.substr(0, model_out.size() - ext.size()) : model_out) + ".MODEL_CARD.md";
}

std::string finetune_card_markdown(const FinetuneCard& c) {
  char buf[1024];
  std::string md = "# " + c.model_out + "\n\n";
  md += "Made by `amxqa-train finetune` from `" + c.model_in + "` on `" + c.data + "` (" + c.data_digest +
        "), weights " + c.dtype + ".\n\n## Data\n\n";
  md += "- trained on: " + counts(c.train) + "\n";
  md += "- held out: " + counts(c.held_out) + " (" + c.split + ")\n";
  std::snprintf(buf, sizeof buf,
                "- training examples: %zu, of which %zu abstain (%zu real unanswerable questions, the rest made "
                "up from answerable ones); %zu questions skipped (answer not on a token boundary, or the prompt "
                "too long)\n\n",
                c.examples, c.abstain_examples, c.real_unanswerable, c.skipped);
  md += buf;
  std::snprintf(buf, sizeof buf,
                "## Training\n\n%llu steps of about %llu tokens (%.1f epochs), %llu tokens, AdamW lr %.2g with "
                "warm-up and cosine decay; %s of training (%.0f tok/s), %s in all with the evaluations, on %u "
                "thread(s) of %s.\n\n",
                c.steps, c.batch_tokens, c.epochs, c.tokens, c.lr, format_duration(c.train_seconds).c_str(),
                c.tok_per_s, format_duration(c.total_seconds).c_str(), c.threads, c.cpu.c_str());
  md += buf;
  md += "## Held-out figures\n\nThrough the public C API on the held-out questions (EM / F1 over all of them, "
        "an unanswerable one right only when the model abstains; has-answer EM / F1; share of unanswerable "
        "questions abstained on; over-refusal: share of answerable ones abstained on; ROC AUC of the no-answer "
        "margin, 0.5 a coin).\n\n";
  md += "| model | EM | F1 | has-answer EM | has-answer F1 | no-answer | over-refusal | AUC | threshold |\n"
        "|---|---|---|---|---|---|---|---|---|\n";
  md += row("before (its own threshold)", c.before);
  if (c.recalibrated) {
    md += row("before, threshold re-chosen", c.before_recalibrated);
    md += row("after, at the input's threshold", c.after_old_threshold);
  }
  md += row("after (the written threshold)", c.after);
  md += "\n" + c.threshold_note + "\n\n";
  md += "## Generations (held out)\n\n| question | gold | before | after |\n|---|---|---|---|\n";
  for (const FinetuneSample& s : c.samples)
    md += "| " + cell(s.question) + " | " + cell(s.gold) + " | " + cell(s.before) + " | " + cell(s.after) + " |\n";
  return md;
}

}  // namespace amxqa::train
