// rng.h — the trainer's one deterministic generator (splitmix64): shuffles,
// splits and example sampling depend only on the recipe seed.
#pragma once
#include <cstdint>
#include <vector>

#include "format/splitmix64.h"

namespace amxqa::train {

using amxqa::splitmix64;

struct Rng {
  uint64_t state;
  explicit Rng(uint64_t seed) : state(seed) {}
  uint64_t next() { return splitmix64(state); }
  // Uniform in [0, n) (n > 0); the modulo bias is irrelevant at these sizes.
  uint64_t below(uint64_t n) { return next() % n; }
  double uniform() { return (next() >> 11) * (1.0 / 9007199254740992.0); }
};

// In-place Fisher-Yates shuffle.
template <class T>
void shuffle(std::vector<T>& v, Rng& rng) {
  for (size_t i = v.size(); i > 1; --i) {
    size_t j = rng.below(i);
    std::swap(v[i - 1], v[j]);
  }
}

}  // namespace amxqa::train
