#include "stages/greedy.h"

#include <cmath>

#include "format/model_spec.h"
#include "format/owned_tokenizer.h"

namespace amxqa::train {

std::vector<uint32_t> greedy_continue(TrainModel& m, std::vector<uint32_t> tokens, size_t max_new,
                                      const std::vector<uint8_t>* vocab_mask) {
  std::vector<uint32_t> out;
  std::vector<float> logits;
  for (size_t i = 0; i < max_new; ++i) {
    m.last_logits(tokens.data(), tokens.size(), logits);
    uint32_t best = kEot;
    float best_v = -INFINITY;
    for (uint32_t id = 0; id < logits.size(); ++id) {
      if (id == kPad || id == kBos || id == kAns) continue;
      if (vocab_mask && id < vocab_mask->size() && !(*vocab_mask)[id] && id != kEot && id != kAbstain) continue;
      if (logits[id] > best_v) {  // strict: ties go to the lower id
        best_v = logits[id];
        best = id;
      }
    }
    out.push_back(best);
    if (best == kEot) break;
    tokens.push_back(best);
  }
  return out;
}

std::string greedy_text(TrainModel& m, const TokenizerView& tok, const std::string& prompt, size_t max_new) {
  std::vector<uint32_t> ids{kBos};
  std::vector<uint32_t> p = encode_text(tok, prompt);
  ids.insert(ids.end(), p.begin(), p.end());
  std::vector<uint32_t> gen = greedy_continue(m, ids, max_new);
  return decode_ids(tok, gen.data(), gen.size());
}

}  // namespace amxqa::train
