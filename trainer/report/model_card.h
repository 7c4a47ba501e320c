// model_card.h — the Markdown model card written next to the shipped model:
// architecture, data and provenance, the results table in the paper's shape
// (round, EM, F1, stop rate, over-refusal, abstention, tokens trained, wall
// time), the final scores, probes, and sample generations.
#pragma once
#include <string>
#include <vector>

namespace amxqa::train {

struct CardRound {
  int round = 0;
  std::string name;
  double em = 0, f1 = 0, stop_rate = 0, over_refusal = 0, abstention = 0;
  unsigned long long tokens = 0;
  double wall_s = 0;
};

struct CardInput {
  std::string model_name, model_path, recipe_name, arch_line, dtype;
  unsigned long long params = 0, active_params = 0, weight_bytes = 0, tokens_seen = 0;
  unsigned vocab = 0, vocab_masked = 0;
  unsigned long long session_bytes = 0, session_bytes_per_token = 0;  // amxqa_session_size
  std::vector<std::string> data_digests;
  std::vector<CardRound> rounds;
  std::string final_scores;     // one Markdown paragraph
  std::string calibration;      // Markdown section from the calibrate stage ("" without one)
  std::string probes;           // Markdown table rows
  std::string samples;          // Markdown table rows
  std::string diagnostics;      // Markdown bullet list
  std::vector<std::pair<std::string, std::string>> figures;  // caption, SVG file next to the card
};

std::string model_card_markdown(const CardInput& in);
// Markdown table of the rounds alone (also printed by `eval`).
std::string rounds_table(const std::vector<CardRound>& rounds);

}  // namespace amxqa::train
