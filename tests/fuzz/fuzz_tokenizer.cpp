// fuzz_tokenizer.cpp — the byte-level BPE on the tiny model's tokenizer with
// arbitrary bytes: encode (public and internal, with offsets), every capacity
// from 0 up, then decode the ids. Byte-level BPE is lossless, so the decoded
// bytes must equal the input exactly, and the offsets must be where each
// token's bytes start.
#include <cstring>
#include <initializer_list>
#include <memory>

#include "fuzz_support.h"
#include "model/model.h"
#include "tokenizer/tokenizer.h"

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  (void)amxqa::fuzz::tiny_model();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const amxqa_model* model = amxqa::fuzz::tiny_model();
  // Exact-size copy: text is not NUL-terminated, ASan sees any over-read.
  const std::unique_ptr<char[]> text(new char[size ? size : 1]);
  if (size) std::memcpy(text.get(), data, size);

  // Count only, then exactly that many ids.
  const size_t n = amxqa_tokenize(model, text.get(), size, nullptr, 0);
  AMXQA_FUZZ_CHECK(n <= size);
  AMXQA_FUZZ_CHECK((n == 0) == (size == 0));
  const std::unique_ptr<uint32_t[]> ids(new uint32_t[n ? n : 1]);
  AMXQA_FUZZ_CHECK(amxqa_tokenize(model, text.get(), size, ids.get(), n) == n);

  // Decode: concatenated token bytes are the input.
  size_t pos = 0;
  for (size_t i = 0; i < n; ++i) {
    AMXQA_FUZZ_CHECK(ids[i] < model->vocab_size);
    size_t len = 0;
    const char* b = amxqa_token_bytes(model, ids[i], &len);
    AMXQA_FUZZ_CHECK(b != nullptr && len > 0 && pos + len <= size);
    AMXQA_FUZZ_CHECK(std::memcmp(b, text.get() + pos, len) == 0);
    pos += len;
  }
  AMXQA_FUZZ_CHECK(pos == size);

  // Internal encoder with offsets: the same ids, each starting where its
  // bytes start.
  const std::unique_ptr<uint32_t[]> ids2(new uint32_t[n ? n : 1]);
  const std::unique_ptr<uint32_t[]> off(new uint32_t[n ? n : 1]);
  AMXQA_FUZZ_CHECK(amxqa::encode(model->tok, text.get(), size, ids2.get(), off.get(), n) == n);
  pos = 0;
  for (size_t i = 0; i < n; ++i) {
    AMXQA_FUZZ_CHECK(ids2[i] == ids[i] && off[i] == pos);
    size_t len = 0;
    amxqa::token_bytes(model->tok, ids[i], &len);
    pos += len;
  }

  // A short capacity writes exactly a prefix of the ids and still counts all.
  for (size_t cap : {size_t(0), size_t(1), n / 2, n > 0 ? n - 1 : 0}) {
    if (cap > n) continue;
    const std::unique_ptr<uint32_t[]> part(new uint32_t[cap ? cap : 1]);
    AMXQA_FUZZ_CHECK(amxqa_tokenize(model, text.get(), size, part.get(), cap) == n);
    for (size_t i = 0; i < cap; ++i) AMXQA_FUZZ_CHECK(part[i] == ids[i]);
  }
  return 0;
}
