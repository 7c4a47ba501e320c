// default_model.h — the shipped model (sdk/models/default.amxqa, or
// $AMXQA_MODEL; amxqa_paths.h's order) mmap'd and opened once per process,
// for the benchmarks that measure what a user of the SDK actually runs.
#pragma once
#include <cstddef>
#include <string>

#include "amxqa.h"

namespace amxqa::bench {

struct DefaultModel {
  std::string path;
  const unsigned char* data = nullptr;
  size_t size = 0;
  amxqa_model* model = nullptr;
};

// The shipped model, or nullptr with *error set (missing file, failed open).
const DefaultModel* default_model(std::string* error);

}  // namespace amxqa::bench
