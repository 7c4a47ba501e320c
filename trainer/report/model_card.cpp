#include "report/model_card.h"

#include <cstdio>

#include "report/metrics_log.h"

namespace amxqa::train {

std::string rounds_table(const std::vector<CardRound>& rounds) {
  std::string s =
      "| round | what it does | EM | F1 | stop-on-EOT | over-refusal | abstention | tokens trained | wall time |\n"
      "|---|---|---|---|---|---|---|---|---|\n";
  char buf[512];
  for (const CardRound& r : rounds) {
    std::snprintf(buf, sizeof buf, "| %d | %s | %.1f | %.1f | %.1f%% | %.1f%% | %.1f%% | %s | %s |\n", r.round,
                  r.name.c_str(), r.em, r.f1, r.stop_rate, r.over_refusal, r.abstention,
                  eval::format_count(double(r.tokens)).c_str(), format_duration(r.wall_s).c_str());
    s += buf;
  }
  return s;
}

std::string model_card_markdown(const CardInput& in) {
  char buf[1024];
  std::string s = "# Model card: " + in.model_name + "\n\n";
  s += "Extractive question answering with a tiny hybrid language model (libamxqa). Trained by `amxqa-train` "
       "from recipe `" + in.recipe_name + "`; every number below was measured on the exported file through the "
       "public C API (`amxqa_model_open` + `amxqa_answer`), i.e. on what ships.\n\n";
  s += "## Architecture\n\n";
  std::snprintf(buf, sizeof buf,
                "- %s\n- parameters: %s stored, %s active; weights %s (%s bytes)\n- vocabulary %u, of which %u masked "
                "(never trained; PAD/BOS/ANS)\n- tokens trained: %s\n\n",
                in.arch_line.c_str(), eval::format_count(double(in.params)).c_str(),
                eval::format_count(double(in.active_params)).c_str(), in.dtype.c_str(),
                eval::format_count(double(in.weight_bytes)).c_str(), in.vocab, in.vocab_masked,
                eval::format_count(double(in.tokens_seen)).c_str());
  s += buf;
  if (in.session_bytes)
    s += "- session memory (amxqa_session_size, default options): " + std::to_string(in.session_bytes) +
         " bytes at 4,096 passage tokens, of which " + std::to_string(in.session_bytes_per_token) +
         " bytes per passage token\n\n";
  s += "## Results by post-training round (SQuAD v1.1 open dev split)\n\n";
  s += rounds_table(in.rounds);
  s += "\nRounds are scored on a subset (eval.round_limit questions); the final row below uses eval.limit. "
       "Stop-on-EOT is measured in free mode, abstention on made-up unanswerable pairs (a question with another "
       "paragraph of its article that holds none of its answers), over-refusal on answerable questions.\n\n";
  for (const auto& f : in.figures) s += "![" + f.first + "](" + f.second + ")\n\n";
  s += "## Final scores\n\n" + in.final_scores + "\n\n";
  if (!in.calibration.empty()) s += in.calibration + "\n";
  if (!in.probes.empty())
    s += "## Probes (greedy, free mode)\n\n| probe | accuracy | chance | n |\n|---|---|---|---|\n" + in.probes + "\n";
  if (!in.samples.empty())
    s += "## Generations next to the score\n\n| question | gold | prediction | abstained |\n|---|---|---|---|\n" +
         in.samples + "\n";
  if (!in.diagnostics.empty()) s += "## Diagnostics\n\n" + in.diagnostics + "\n";
  s += "## Data and provenance\n\n";
  for (const auto& d : in.data_digests) s += "- `" + d + "`\n";
  s += "\nData: SQuAD v1.1 (CC BY-SA 4.0), Wikipedia paragraphs (CC BY-SA 4.0), Project Gutenberg texts "
       "(public domain in the US), as configured by the recipe. No dev data was trained on.\n";
  return s;
}

}  // namespace amxqa::train
