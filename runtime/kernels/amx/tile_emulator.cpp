// tile_emulator.cpp — the SDM pseudocode of the AMX tile instructions, one
// function per instruction. Numerics of TDPBF16PS follow the SDM (not the
// simpler Intrinsics Guide loop):
//   * per output row, a temporary of 2 x (colsb/4) fp32 lanes starts at zero;
//     for each k pair, the even lane accumulates a[2k]*b[2n] and the odd lane
//     a[2k+1]*b[2n+1], each as one FMA (the bf16 x bf16 product is exact in
//     fp32 anyway), rounded to nearest-even;
//   * then tmp = even + odd, and dst = dst + tmp, both RNE;
//   * DAZ: bf16 inputs and the incoming accumulator that are denormal are read
//     as (signed) zero; FTZ: every rounded result that is denormal becomes a
//     signed zero (tininess detected after rounding, as x86 FTZ does);
//   * MXCSR is neither read nor written: each fused step is
//     canonical_bf16::fused_step (a multiply and add where the bf16 product
//     is exact, else fmaf), rounding to nearest-even in the default
//     environment.
// TDPBSSD is exact int32 arithmetic with wrap-around.
#include "kernels/amx/tile_emulator.h"

#include "kernels/canonical_bf16.h"

#include <cmath>
#include <cstring>

namespace amxqa::amx_emu {
namespace {

struct TileState {
  TileConfig cfg;          // all zero = init state
  bool configured;         // TILES_CONFIGURED
  TileFault first_fault;   // sticky, for tests
  alignas(64) uint8_t t[kMaxNames][kMaxRows][kBytesPerRow];
};

// Zero-initialised per thread, in TLS: never on the heap.
thread_local TileState g_state;

TileFault fail(TileFault f) {
  if (g_state.first_fault == TileFault::none) g_state.first_fault = f;
  return f;
}

bool valid_index(int t) { return t >= 0 && t < kMaxNames; }

float bits_to_f32(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}
uint32_t f32_to_bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

// DAZ: a denormal input reads as a zero of the same sign.
float daz(float f) {
  const uint32_t u = f32_to_bits(f);
  if ((u & 0x7f800000u) == 0) return bits_to_f32(u & 0x80000000u);
  return f;
}
// FTZ: a denormal result becomes a zero of the same sign.
float ftz(float f) { return daz(f); }

// make_fp32: the bf16 bit pattern in the upper half of a dword, then DAZ.
float make_fp32(uint16_t b) { return daz(bits_to_f32(static_cast<uint32_t>(b) << 16)); }

uint16_t load_u16(const uint8_t* p) {
  uint16_t v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
uint32_t load_u32(const uint8_t* p) {
  uint32_t v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
void store_u32(uint8_t* p, uint32_t v) { std::memcpy(p, &v, sizeof v); }

// write_row_and_zero + zero_upper_rows: bytes past colsb and rows past the
// tile's row count are zero after any instruction that writes a tile.
void zero_outside(int t) {
  const unsigned rows = g_state.cfg.rows[t], colsb = g_state.cfg.colsb[t];
  for (unsigned r = 0; r < static_cast<unsigned>(kMaxRows); ++r) {
    const unsigned from = r < rows ? colsb : 0;
    std::memset(&g_state.t[t][r][from], 0, kBytesPerRow - from);
  }
}

// The #UD checks shared by TDPBF16PS and TDPBSSD (SDM exception class AMX-E4).
TileFault check_dot_shapes(int dst, int a, int b) {
  if (!g_state.configured) return TileFault::not_configured;
  if (!valid_index(dst) || !valid_index(a) || !valid_index(b)) return TileFault::bad_tile_index;
  if (dst == a || dst == b || a == b) return TileFault::same_register;
  const TileConfig& c = g_state.cfg;
  if (c.colsb[dst] % 4 || c.colsb[a] % 4 || c.colsb[b] % 4) return TileFault::shape_mismatch;
  if (c.colsb[a] / 4 != c.rows[b]) return TileFault::shape_mismatch;  // K
  if (c.colsb[dst] != c.colsb[b]) return TileFault::shape_mismatch;   // N
  if (c.rows[dst] != c.rows[a]) return TileFault::shape_mismatch;     // M
  return TileFault::none;
}

}  // namespace

const char* tile_fault_name(TileFault f) {
  switch (f) {
    case TileFault::none: return "none";
    case TileFault::null_pointer: return "null pointer";
    case TileFault::bad_palette: return "#GP: palette_id > 1";
    case TileFault::reserved_nonzero: return "#GP: reserved bytes not zero";
    case TileFault::colsb_too_large: return "#GP: colsb > 64";
    case TileFault::rows_too_large: return "#GP: rows > 16";
    case TileFault::rows_colsb_mismatch: return "#GP: rows and colsb not both zero or both non-zero";
    case TileFault::not_configured: return "#UD: tiles not configured";
    case TileFault::bad_tile_index: return "#UD: tile register outside tmm0..tmm7";
    case TileFault::same_register: return "#UD: operands name the same tile";
    case TileFault::shape_mismatch: return "#UD: tile shapes do not match";
  }
  return "unknown";
}

TileFault ldtilecfg(const void* cfg64) {
  if (!cfg64) return fail(TileFault::null_pointer);
  uint8_t buf[64];
  std::memcpy(buf, cfg64, sizeof buf);
  TileConfig tmp;
  std::memcpy(&tmp, buf, sizeof tmp);
  if (tmp.palette_id > 1) return fail(TileFault::bad_palette);
  if (tmp.palette_id == 0) {  // palette 0 is the init state
    tilerelease();
    return TileFault::none;
  }
  for (int i = 0; i < 14; ++i)
    if (tmp.reserved[i]) return fail(TileFault::reserved_nonzero);
  for (int n = 0; n < kMaxNames; ++n) {
    if (tmp.colsb[n] > kBytesPerRow) return fail(TileFault::colsb_too_large);
    if (tmp.rows[n] > kMaxRows) return fail(TileFault::rows_too_large);
    if ((tmp.rows[n] == 0) != (tmp.colsb[n] == 0)) return fail(TileFault::rows_colsb_mismatch);
  }
  for (int n = kMaxNames; n < 16; ++n)
    if (tmp.colsb[n] || tmp.rows[n]) return fail(TileFault::reserved_nonzero);
  // Success: the new configuration zeroes all tile data.
  g_state.cfg = tmp;
  g_state.configured = true;
  std::memset(g_state.t, 0, sizeof g_state.t);
  return TileFault::none;
}

TileFault sttilecfg(void* cfg64) {
  if (!cfg64) return fail(TileFault::null_pointer);
  if (g_state.configured) {
    std::memcpy(cfg64, &g_state.cfg, sizeof g_state.cfg);
  } else {
    std::memset(cfg64, 0, sizeof(TileConfig));
  }
  return TileFault::none;
}

TileFault tileloadd(int t, const void* base, size_t stride) {
  if (!g_state.configured) return fail(TileFault::not_configured);
  if (!valid_index(t)) return fail(TileFault::bad_tile_index);
  if (!base) return fail(TileFault::null_pointer);
  const uint8_t* src = static_cast<const uint8_t*>(base);
  const unsigned rows = g_state.cfg.rows[t], colsb = g_state.cfg.colsb[t];
  // Rows below start_row keep their contents (restart after a fault).
  for (unsigned r = g_state.cfg.start_row; r < rows; ++r)
    std::memcpy(g_state.t[t][r], src + r * stride, colsb);
  zero_outside(t);
  g_state.cfg.start_row = 0;
  return TileFault::none;
}

TileFault tilestored(int t, void* base, size_t stride) {
  if (!g_state.configured) return fail(TileFault::not_configured);
  if (!valid_index(t)) return fail(TileFault::bad_tile_index);
  if (!base) return fail(TileFault::null_pointer);
  uint8_t* dst = static_cast<uint8_t*>(base);
  const unsigned rows = g_state.cfg.rows[t], colsb = g_state.cfg.colsb[t];
  for (unsigned r = g_state.cfg.start_row; r < rows; ++r)
    std::memcpy(dst + r * stride, g_state.t[t][r], colsb);
  g_state.cfg.start_row = 0;
  return TileFault::none;
}

TileFault tilezero(int t) {
  if (!g_state.configured) return fail(TileFault::not_configured);
  if (!valid_index(t)) return fail(TileFault::bad_tile_index);
  std::memset(g_state.t[t], 0, sizeof g_state.t[t]);
  g_state.cfg.start_row = 0;
  return TileFault::none;
}

TileFault tdpbf16ps(int dst, int a, int b) {
  const TileFault f = check_dot_shapes(dst, a, b);
  if (f != TileFault::none) return fail(f);
  const unsigned rows = g_state.cfg.rows[dst];
  const unsigned kpairs = g_state.cfg.colsb[a] / 4;  // elements_src1
  const unsigned ncols = g_state.cfg.colsb[dst] / 4;  // elements_dest
  // B's bf16 pairs as f32, once per instruction (not once per row of A).
  float bf[kMaxRows][kBytesPerRow / 2];
  for (unsigned k = 0; k < kpairs; ++k)
    for (unsigned c = 0; c < 2 * ncols; ++c) bf[k][c] = make_fp32(load_u16(g_state.t[b][k] + 2 * c));
  for (unsigned m = 0; m < rows; ++m) {
    float temp1[2 * kBytesPerRow / 4] = {};
    for (unsigned k = 0; k < kpairs; ++k) {
      const uint8_t* arow = g_state.t[a][m] + 4 * k;
      const float a0 = make_fp32(load_u16(arow)), a1 = make_fp32(load_u16(arow + 2));
      for (unsigned n = 0; n < ncols; ++n) {
        // ftz(fmaf(a, b, t)) for bf16 operands (canonical_bf16.h).
        temp1[2 * n + 0] = canonical_bf16::fused_step(a0, bf[k][2 * n + 0], temp1[2 * n + 0]);
        temp1[2 * n + 1] = canonical_bf16::fused_step(a1, bf[k][2 * n + 1], temp1[2 * n + 1]);
      }
    }
    uint8_t* drow = g_state.t[dst][m];
    for (unsigned n = 0; n < ncols; ++n) {
      const float tmp = ftz(temp1[2 * n] + temp1[2 * n + 1]);
      const float acc = daz(bits_to_f32(load_u32(drow + 4 * n)));
      store_u32(drow + 4 * n, f32_to_bits(ftz(acc + tmp)));
    }
  }
  zero_outside(dst);
  g_state.cfg.start_row = 0;
  return TileFault::none;
}

TileFault tdpbssd(int dst, int a, int b) {
  const TileFault f = check_dot_shapes(dst, a, b);
  if (f != TileFault::none) return fail(f);
  const unsigned rows = g_state.cfg.rows[dst];
  const unsigned kquads = g_state.cfg.colsb[a] / 4;
  const unsigned ncols = g_state.cfg.colsb[dst] / 4;
  for (unsigned m = 0; m < rows; ++m) {
    uint8_t* drow = g_state.t[dst][m];
    for (unsigned n = 0; n < ncols; ++n) {
      // Unsigned arithmetic: int32 wrap-around without undefined behaviour.
      uint32_t acc = load_u32(drow + 4 * n);
      for (unsigned k = 0; k < kquads; ++k) {
        const int8_t* av = reinterpret_cast<const int8_t*>(g_state.t[a][m] + 4 * k);
        const int8_t* bv = reinterpret_cast<const int8_t*>(g_state.t[b][k] + 4 * n);
        int32_t dot = 0;  // at most 4 * 128 * 128: no overflow
        for (int i = 0; i < 4; ++i) dot += static_cast<int32_t>(av[i]) * bv[i];
        acc += static_cast<uint32_t>(dot);
      }
      store_u32(drow + 4 * n, acc);
    }
  }
  zero_outside(dst);
  g_state.cfg.start_row = 0;
  return TileFault::none;
}

void tilerelease() {
  std::memset(&g_state.cfg, 0, sizeof g_state.cfg);
  std::memset(g_state.t, 0, sizeof g_state.t);
  g_state.configured = false;
}

bool tiles_configured() { return g_state.configured; }
TileFault tile_fault() { return g_state.first_fault; }
void clear_tile_fault() { g_state.first_fault = TileFault::none; }

}  // namespace amxqa::amx_emu
