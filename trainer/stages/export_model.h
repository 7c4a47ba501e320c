// export_model.h — TrainModel → ModelSpec → write_model → file. The spec
// carries the architecture, the tokenizer, the vocabulary mask and the
// provenance (recipe name + Recipe::model_text(), data digests: FNV-1a 64 of
// the first MiB of each raw data file plus its size, tokens seen, scores).
// Nothing of the machine or the run's folder: no wall time (0), no path.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "format/model_writer.h"
#include "model/train_model.h"
#include "stages/run_context.h"

namespace amxqa::train {

// MODEL.md's rule with nothing banned yet: PAD, BOS, ANS forbidden, all else allowed.
std::vector<uint8_t> open_vocab_mask(uint32_t vocab_size);
// Round 4: additionally forbid every id never seen as an input or a target.
std::vector<uint8_t> trained_vocab_mask(const std::vector<uint64_t>& token_seen, uint32_t vocab_size);
void apply_special_rule(std::vector<uint8_t>& mask);  // PAD/BOS/ANS 0, EOT/ABSTAIN 1

void save_vocab_mask(const std::string& path, const std::vector<uint8_t>& mask);
std::vector<uint8_t> load_vocab_mask(const std::string& path, uint32_t vocab_size);  // throws

ModelSpec make_model_spec(const RunContext& ctx, const TrainModel& model, const TrainState& state,
                          const TokenizerData& tok, const std::vector<uint8_t>& mask,
                          const std::vector<std::pair<std::string, float>>& scores, const std::string& notes);

// Writes the file (through a temporary name, so a crash never leaves half a model).
void export_model_file(const std::string& path, const ModelSpec& spec);

}  // namespace amxqa::train
