#include "fuzz_support.h"

#include <cstring>
#include <vector>

#include "format/model_writer.h"
#include "format/random_model.h"

namespace amxqa::fuzz {

AlignedCopy::AlignedCopy(const void* src, size_t size) : size_(size) {
  void* p = nullptr;
  // posix_memalign(…, 0) may return NULL or a unique pointer; ask for 1 byte
  // then so data() is never NULL (the library gets len 0 either way).
  if (posix_memalign(&p, 64, size ? size : 1) != 0) std::abort();
  data_ = static_cast<uint8_t*>(p);
  if (src && size) std::memcpy(data_, src, size);
}

AlignedCopy::~AlignedCopy() { std::free(data_); }

const amxqa_model* tiny_model() {
  // Function-local statics live until exit and stay reachable, so LeakSanitizer
  // is quiet (write-only globals were optimised away at -O2 and leaked); the
  // model view must outlive every session, including those in static storage.
  static const std::vector<uint8_t> bytes = write_model(make_random_model("tiny", 7));
  static AlignedCopy file_copy(bytes.data(), bytes.size());
  static AlignedCopy storage_copy(AMXQA_MODEL_STORAGE_BYTES);
  static const amxqa_model* model = [] {
    AlignedCopy* file = &file_copy;
    AlignedCopy* storage = &storage_copy;
    amxqa_model* m = nullptr;
    const amxqa_status st = amxqa_model_open(file->data(), file->size(), storage->data(), &m);
    if (st != AMXQA_OK) {
      std::fprintf(stderr, "fuzz: the tiny model does not open: %s\n", amxqa_last_error(nullptr));
      std::abort();
    }
    return m;
  }();
  return model;
}

}  // namespace amxqa::fuzz
