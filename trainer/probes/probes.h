// probes.h — synthetic behaviour probes generated in code (the paper's three),
// each with its chance level, scored by greedy generation:
//   induction  14 distinct random two-letter words, then the first k (2..8)
//              again: the next word is w[k]. Chance 1/14.
//   shift      14 distinct random letters, a newline, then the same list
//              started one position later and cut after k items: the next
//              item continues the shifted copy. Chance 1/14.
//   addition   "a+b=" for two-digit a, b: the sum's digits. Chance (ours):
//              the accuracy of always answering the most frequent sum of the
//              generated items (an honest constant-guess baseline).
// A probe item has a raw continuation prompt (pretrained checkpoints) and a
// QA form (question + passage) for models answered through the C API.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace amxqa::train {

struct ProbeItem {
  std::string prompt;    // raw continuation: prompt → expected
  std::string question;  // QA form: question about passage → expected
  std::string passage;
  std::string expected;  // e.g. " ko" for induction (with its leading space), "68" for addition
};

struct ProbeSet {
  std::string name;
  double chance = 0;
  std::vector<ProbeItem> items;
};

std::vector<ProbeSet> make_probes(uint64_t seed, size_t items_per_probe);

// Correct when the generation, left-trimmed, starts with the trimmed expected
// text and the next character is not a letter or digit.
bool probe_correct(const std::string& generated, const std::string& expected);

struct ProbeResult {
  std::string name;
  double accuracy = 0, chance = 0;
  size_t n = 0;
  std::vector<std::pair<std::string, std::string>> examples;  // (expected, generated), a few
};

// `generate(item)` returns the model's greedy output for the item.
std::vector<ProbeResult> run_probes(const std::vector<ProbeSet>& sets,
                                    const std::function<std::string(const ProbeItem&)>& generate);

}  // namespace amxqa::train
