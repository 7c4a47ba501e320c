// tokenizer_file.h — the tokenizer stage's output: the trained merges as a
// small text file ("amxqa-tokenizer 1", max_chunk_len, then one "left right"
// line per merge in rank order). The model file carries the same data.
#pragma once
#include <string>

#include "format/model_spec.h"

namespace amxqa::train {

void save_tokenizer(const std::string& path, const TokenizerData& tok);
// Throws std::runtime_error on a missing or malformed file.
TokenizerData load_tokenizer(const std::string& path);

}  // namespace amxqa::train
