// encode_text.h — appending encodes for building documents. The trainer
// tokenizes with the runtime's encoder (runtime/tokenizer/tokenizer.h), never
// a second implementation; whole-text encode/decode helpers are in
// format/owned_tokenizer.h.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "tokenizer/tokenizer.h"

namespace amxqa::train {

// Appends the ids of `text` to ids (and, if offsets is given, each token's
// start byte in text, aligned with the appended ids).
void encode_append(const TokenizerView& tok, const char* text, size_t len, std::vector<uint32_t>& ids,
                   std::vector<uint32_t>* offsets = nullptr);
}  // namespace amxqa::train
