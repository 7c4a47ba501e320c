// fuzz_support.h — shared by every fuzz target (libFuzzer build and the
// corpus-replay regression driver): aligned copies of inputs that keep
// AddressSanitizer's exact bounds, the fixed tiny and micro models the
// targets run against (model_open opens its input instead), and a check that
// aborts loudly.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "amxqa.h"
#include "format/model_spec.h"

namespace amxqa::fuzz {

// Aborts with a message: a broken invariant is a finding, like a crash.
#define AMXQA_FUZZ_CHECK(cond)                                                          \
  do {                                                                                  \
    if (!(cond)) {                                                                      \
      std::fprintf(stderr, "%s:%d: fuzz invariant failed: %s\n", __FILE__, __LINE__, #cond); \
      std::abort();                                                                     \
    }                                                                                   \
  } while (0)

// Exactly `size` heap bytes at a 64-byte aligned address (posix_memalign), so
// a read one byte past the end is an ASan error, not a read of padding.
class AlignedCopy {
 public:
  AlignedCopy(const void* src, size_t size);
  explicit AlignedCopy(size_t size) : AlignedCopy(nullptr, size) {}
  ~AlignedCopy();
  AlignedCopy(const AlignedCopy&) = delete;
  AlignedCopy& operator=(const AlignedCopy&) = delete;
  uint8_t* data() const { return data_; }
  size_t size() const { return size_; }

 private:
  uint8_t* data_ = nullptr;
  size_t size_ = 0;
};

// The deterministic tiny model (make_random_model("tiny", 7), f32), written
// and opened once per process and kept open for the process lifetime.
const amxqa_model* tiny_model();

// The tiny preset shrunk to d 16 (same tokenizer, vocab 300 and tensor
// names; 1 head, window 8, 2 experts top-1): a few KiB, a forward step is a
// few microseconds, so targets that answer run hundreds of inputs a second.
ModelSpec micro_model_spec(DType dtype);
// micro_model_spec(f32), opened once per process like tiny_model().
const amxqa_model* micro_model();

// micro_model_spec(dtype) with every pointer feature on: the start and end
// pointers, the no-answer head and the passage reader (schemas/MODEL.md),
// their tensors filled like the others, so the pointer paths get fuzzed too.
ModelSpec micro_reader_spec(DType dtype);
// micro_reader_spec(bf16), opened once per process like tiny_model().
const amxqa_model* micro_reader_model();

}  // namespace amxqa::fuzz
