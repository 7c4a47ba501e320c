// splitmix64.h — the project's one deterministic 64-bit generator step
// (Steele, Lea, Flood 2014). Random reference models, the trainer's shuffles
// and the tests' random text all draw from it, so a seed means the same
// stream everywhere.
#pragma once
#include <cstdint>

namespace amxqa {

inline uint64_t splitmix64(uint64_t& state) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

}  // namespace amxqa
