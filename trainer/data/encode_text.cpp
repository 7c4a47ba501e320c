#include "data/encode_text.h"

namespace amxqa::train {

void encode_append(const TokenizerView& tok, const char* text, size_t len, std::vector<uint32_t>& ids,
                   std::vector<uint32_t>* offsets) {
  size_t base = ids.size();
  // A byte-level BPE never yields more tokens than bytes: one pass suffices.
  size_t cap = len;
  ids.resize(base + cap);
  if (offsets) offsets->resize(base + cap);
  size_t n = encode(tok, text, len, ids.data() + base, offsets ? offsets->data() + base : nullptr, cap);
  if (n > cap) {  // defensive: the contract allows it
    ids.resize(base + n);
    if (offsets) offsets->resize(base + n);
    n = encode(tok, text, len, ids.data() + base, offsets ? offsets->data() + base : nullptr, n);
  }
  ids.resize(base + n);
  if (offsets) offsets->resize(base + n);
}

}  // namespace amxqa::train
