// bf16.cpp — the one definition of f32 <-> bf16 used by the model writer, the
// kernels and the tests, so a bf16 weight means the same thing everywhere.
#include "kernels/bf16_inline.h"
#include "kernels/kernels.h"

#include <cstring>

namespace amxqa {

uint16_t f32_to_bf16(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  if ((u & 0x7fffffffu) > 0x7f800000u) {
    // NaN: keep sign and top payload bits, force the quiet bit so truncation
    // can never turn it into an infinity.
    return static_cast<uint16_t>((u >> 16) | 0x0040u);
  }
  // Round to nearest, ties to even: add 0x7fff plus the lowest kept bit.
  // Overflow past the largest finite value correctly rounds to infinity.
  u += 0x7fffu + ((u >> 16) & 1u);
  return static_cast<uint16_t>(u >> 16);
}

float bf16_to_f32(uint16_t b) { return bf16_bits_to_f32(b); }

}  // namespace amxqa
