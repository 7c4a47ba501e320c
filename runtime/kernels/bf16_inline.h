// bf16_inline.h — bf16 → f32 widening as an inlinable helper for kernel inner
// loops (a call into bf16.cpp per element costs more than the multiply).
// static: each ISA translation unit keeps its own copy (no ODR mixing).
#pragma once
#include <cstdint>
#include <cstring>

namespace amxqa {

static inline float bf16_bits_to_f32(uint16_t b) {
  const uint32_t u = static_cast<uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

}  // namespace amxqa
