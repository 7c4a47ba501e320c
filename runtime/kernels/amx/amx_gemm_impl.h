// amx_gemm_impl.h — the AMX tile GEMMs, written once. Include after defining
// AMXQA_TILES_REAL or AMXQA_TILES_EMULATED (see tile_ops.h); everything lands
// in namespace amxqa::AMXQA_TILE_NS, one copy per backend.
//
// All three kernels compute the prefill product of kernels.h,
//   Y[m][N] = X[m][K] · Wᵀ   (W logical [N rows = outputs][K cols = inputs]),
// on a 32 x 32 block of outputs at a time with all 8 tiles (tile_block):
//   tmm0..tmm3  C, 2 x 2 tiles of 16 x 16 (fp32 or int32)
//   tmm4, tmm5  A, rows i0..i0+15 and i0+16..i0+31 of the activations
//   tmm6, tmm7  B, outputs j0..j0+15 and j0+16..j0+31 of the weights
// except amx_bf16_plain_gemm_16x16 (plain row-major bf16 weights, the layout
// of the shipped bf16 model; the default model is int8 vnni4), which computes Yᵀ = W · Xᵀ: A = 16 weight
// rows loaded straight from the model, B = activations packed into bf16 VNNI
// pairs, C = Yᵀ stored through a transposing buffer (see its section below).
// Every tile is 16 rows x 64 bytes (one configuration, loaded once per thread).
//
// bf16 (amx_bf16_gemm_16x16): W is vnni2 [K/2][N][2], which *is* the B tile
// layout (row = one k pair, 16 outputs x 2 bf16), so full B tiles load straight
// from the model with stride 4N bytes (zero copy). Activations are rounded to
// bf16 (RNE, as f32_to_bf16) into a 32-row panel of kKcBf16 columns.
//
// int8 (amx_int8_gemm_16x16): W is vnni4 [K/4][N][4] with one f32 scale per
// output. It computes canonical_i8.h, the int8 product every table computes:
// activations quantised per row (symmetric absmax, sx = max |x| / 127),
// TDPBSSD's exact int32 sums, Y[i][j] = w.scales[j] * (sx[i] * acc).
//
// Edges: M, N and K need not be multiples of the tile sizes. Missing A rows and
// K columns are zeros in the panel; B tiles that cross N or K are copied into a
// zero-padded stack buffer; C tiles that cross M or N go through a 16 x 16
// stack buffer. Padding only ever meets padding or discarded outputs.
//
// K is processed in chunks (the A panel stays in L1/L2); C tiles are zeroed on
// the first chunk and reloaded from Y on later ones (int8 keeps its raw int32
// partial sums in Y's bytes until the last chunk converts them).
// Nothing is allocated: all buffers are on the stack (~36 KiB per kernel).
#pragma once
#include <cstddef>
#include <cstdint>
#include <cmath>
#include <cstring>

#include "kernels/amx/tile_ops.h"
#include "kernels/canonical_i8.h"
#include "kernels/canonical_i8_steps.h"
#include "kernels/kernels.h"

namespace amxqa {
namespace AMXQA_TILE_NS {

constexpr size_t kTile = 16;         // rows of every tile, and C columns
constexpr size_t kBlock = 2 * kTile; // outputs per block in each dimension
constexpr size_t kKcBf16 = 512;      // bf16 activations per panel row (16 k-tiles)
constexpr size_t kKcI8 = 1024;       // int8 activations per panel row (16 k-tiles)
static_assert(kKcBf16 % 32 == 0 && kKcI8 % 64 == 0, "chunks are whole k-tiles");

inline size_t min_sz(size_t a, size_t b) { return a < b ? a : b; }
inline size_t round_up(size_t v, size_t to) { return (v + to - 1) / to * to; }

// ---- per-thread tile configuration --------------------------------------

inline thread_local bool t_configured = false;

inline amx_emu::TileConfig kernel_config() {
  amx_emu::TileConfig c{};
  c.palette_id = 1;
  for (int t = 0; t < amx_emu::kMaxNames; ++t) {
    c.colsb[t] = amx_emu::kBytesPerRow;
    c.rows[t] = amx_emu::kMaxRows;
  }
  return c;
}

// Someone else on this thread may have loaded another tile configuration
// (the emulator's own tests, another AMX library, ...). STTILECFG costs far
// less than the smallest tile GEMM (16 x 16 x 32), so check rather than trust.
inline bool still_configured() {
  alignas(64) amx_emu::TileConfig now{};
  const amx_emu::TileConfig want = kernel_config();
  AMXQA_TILE_STORECONFIG(&now);
  return std::memcmp(&now, &want, sizeof now) == 0;
}

inline void ensure_configured() {
  if (t_configured && still_configured()) return;
  alignas(64) const amx_emu::TileConfig cfg = kernel_config();
  AMXQA_TILE_LOADCONFIG(&cfg);
  t_configured = true;
}

inline void release_tiles() {
  if (t_configured) AMXQA_TILE_RELEASE();
  t_configured = false;
}

// ---- tile register number from a runtime index (C tiles only, cold path) --

inline void tile_zero_n(int t) {
  switch (t) {
    case 0: AMXQA_TILE_ZERO(0); break;
    case 1: AMXQA_TILE_ZERO(1); break;
    case 2: AMXQA_TILE_ZERO(2); break;
    default: AMXQA_TILE_ZERO(3); break;
  }
}
inline void tile_load_n(int t, const void* p, size_t stride) {
  switch (t) {
    case 0: AMXQA_TILE_LOAD(0, p, stride); break;
    case 1: AMXQA_TILE_LOAD(1, p, stride); break;
    case 2: AMXQA_TILE_LOAD(2, p, stride); break;
    default: AMXQA_TILE_LOAD(3, p, stride); break;
  }
}
inline void tile_store_n(int t, void* p, size_t stride) {
  switch (t) {
    case 0: AMXQA_TILE_STORE(0, p, stride); break;
    case 1: AMXQA_TILE_STORE(1, p, stride); break;
    case 2: AMXQA_TILE_STORE(2, p, stride); break;
    default: AMXQA_TILE_STORE(3, p, stride); break;
  }
}

// ---- C tiles: 16 x 16 x 4 bytes at Y[i0..][j0..], clipped to rows x cols ----

struct CTile {
  float* y;          // Y + i0 * ldy + j0
  size_t ldy;        // in elements
  size_t rows, cols; // valid part, each 1..16
  bool full() const { return rows == kTile && cols == kTile; }
};

// First K chunk: zero; later chunks: reload the partial sums (raw 32-bit
// lanes, fp32 or int32) from Y.
inline void c_begin(int t, const CTile& c, bool first, uint32_t (*buf)[kTile]) {
  if (first) {
    tile_zero_n(t);
  } else if (c.full()) {
    tile_load_n(t, c.y, c.ldy * 4);
  } else {
    std::memset(buf, 0, kTile * kTile * 4);
    for (size_t r = 0; r < c.rows; ++r) std::memcpy(buf[r], c.y + r * c.ldy, c.cols * 4);
    tile_load_n(t, buf, kTile * 4);
  }
}

// Store the tile's raw 32-bit lanes into Y's valid part.
inline void c_store_raw(int t, const CTile& c, uint32_t (*buf)[kTile]) {
  if (c.full()) {
    tile_store_n(t, c.y, c.ldy * 4);
    return;
  }
  tile_store_n(t, buf, kTile * 4);
  for (size_t r = 0; r < c.rows; ++r) std::memcpy(c.y + r * c.ldy, buf[r], c.cols * 4);
}

// int8 last chunk: Y = scale_w[j] * (sx[i] * acc), a row of the tile at a
// time (canonical_i8_steps.h: vector where the CPU has AVX-512).
inline void c_store_scaled(const canonical_i8::Steps& steps, int t, const CTile& c,
                           const float* sx, const float* sw, uint32_t (*buf)[kTile]) {
  tile_store_n(t, buf, kTile * 4);
  for (size_t r = 0; r < c.rows; ++r)
    steps.dequantize(reinterpret_cast<const int32_t*>(buf[r]), c.cols, sx[r], sw,
                     c.y + r * c.ldy);
}

// ---- activations --------------------------------------------------------

// Same rounding as amxqa::f32_to_bf16 (kernels/bf16.cpp), inlined so this
// backend's compiler flags can vectorise the panel conversion.
inline uint16_t to_bf16(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  if ((u & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((u >> 16) | 0x0040u);
  u += 0x7fffu + ((u >> 16) & 1u);
  return static_cast<uint16_t>(u >> 16);
}

// panel[r][0..kc_pad) = bf16(X[r][k0..k0+kc)), zero beyond kc and for r >= mr.
inline void pack_a_bf16(const float* X, size_t ldx, size_t mr, size_t rows_pad, size_t k0,
                        size_t kc, size_t kc_pad, uint16_t (*panel)[kKcBf16]) {
  for (size_t r = 0; r < rows_pad; ++r) {
    uint16_t* dst = panel[r];
    size_t c = 0;
    if (r < mr) {
      const float* src = X + r * ldx + k0;
      for (; c < kc; ++c) dst[c] = to_bf16(src[c]);
    }
    for (; c < kc_pad; ++c) dst[c] = 0;
  }
}

// panel[r][0..kc_pad) = q(X[r][k0..k0+kc)) with row r's sx, zero beyond kc
// and for r >= mr (canonical_i8_steps.h: vector where the CPU has AVX-512).
inline void pack_a_i8(const canonical_i8::Steps& steps, const float* X, size_t ldx, size_t mr,
                      size_t rows_pad, size_t k0, size_t kc, size_t kc_pad, const float* sx,
                      int8_t (*panel)[kKcI8]) {
  for (size_t r = 0; r < rows_pad; ++r) {
    int8_t* dst = panel[r];
    size_t c = 0;
    if (r < mr) {
      steps.quantize(X + r * ldx + k0, kc, sx[r], dst);
      c = kc;
    }
    std::memset(dst + c, 0, kc_pad - c);
  }
}

// ---- B tiles ------------------------------------------------------------

// A B tile is 16 rows of 64 bytes: k-group g0+r, outputs j0..j0+15, each
// output one 4-byte group (a bf16 pair or four int8). W holds groups
// [kgroups][N][4 bytes]. Returns where to load it from, and its stride.
inline const void* b_tile(const uint8_t* w, size_t n_out, size_t kgroups, size_t g0, size_t j0,
                          uint8_t (*buf)[64], size_t* stride) {
  if (g0 + kTile <= kgroups && j0 + kTile <= n_out) {
    *stride = n_out * 4;
    return w + (g0 * n_out + j0) * 4;
  }
  const size_t cols = min_sz(kTile, n_out - j0);
  for (size_t r = 0; r < kTile; ++r) {
    const size_t g = g0 + r;
    size_t c = 0;
    if (g < kgroups) {
      std::memcpy(buf[r], w + (g * n_out + j0) * 4, cols * 4);
      c = cols * 4;
    }
    std::memset(buf[r] + c, 0, 64 - c);
  }
  *stride = 64;
  return buf;
}

// ---- the kernels --------------------------------------------------------

// One 32 x 32 output block over `ktiles` k-tiles with all 8 tiles: C tile
// (ri, cj), held in tmm(2 ri + cj), += A half ri (tmm4, tmm5) · B half cj
// (tmm6, tmm7). a(kt, half, &stride) and b(kt, half, &stride) say where to
// load each operand tile from. DP is the tile dot product (0: TDPBF16PS,
// 1: TDPBSSD). The second A / B half is loaded only when two_rows / two_cols.
template <int DP, class ASrc, class BSrc>
inline void tile_block(size_t ktiles, bool two_rows, bool two_cols, const ASrc& a,
                       const BSrc& b) {
  for (size_t kt = 0; kt < ktiles; ++kt) {
    size_t sa = 0, sb = 0;
    const void* a0 = a(kt, 0, &sa);
    AMXQA_TILE_LOAD(4, a0, sa);
    const void* b0 = b(kt, 0, &sb);
    AMXQA_TILE_LOAD(6, b0, sb);
    if (DP == 0) AMXQA_TILE_DPBF16PS(0, 4, 6); else AMXQA_TILE_DPBSSD(0, 4, 6);
    if (two_cols) {
      const void* b1 = b(kt, 1, &sb);
      AMXQA_TILE_LOAD(7, b1, sb);
      if (DP == 0) AMXQA_TILE_DPBF16PS(1, 4, 7); else AMXQA_TILE_DPBSSD(1, 4, 7);
    }
    if (two_rows) {
      const void* a1 = a(kt, 1, &sa);
      AMXQA_TILE_LOAD(5, a1, sa);
      if (DP == 0) AMXQA_TILE_DPBF16PS(2, 5, 6); else AMXQA_TILE_DPBSSD(2, 5, 6);
      if (two_cols) {
        if (DP == 0) AMXQA_TILE_DPBF16PS(3, 5, 7); else AMXQA_TILE_DPBSSD(3, 5, 7);
      }
    }
  }
}

// One 32 x 32 output block over one K chunk of the vnni products: A from the
// activation panel (rows a_stride bytes apart), B straight from the weights.
template <int DP>
inline void block_chunk(const uint8_t* a_panel, size_t a_stride, bool two_rows, const uint8_t* w,
                        size_t n_out, size_t kgroups, size_t g_begin, size_t ktiles, size_t j0,
                        bool two_cols) {
  alignas(64) uint8_t bbuf[2][kTile][64];
  tile_block<DP>(
      ktiles, two_rows, two_cols,
      [&](size_t kt, size_t half, size_t* stride) -> const void* {
        *stride = a_stride;
        return a_panel + kt * 64 + half * kTile * a_stride;
      },
      [&](size_t kt, size_t half, size_t* stride) {
        return b_tile(w, n_out, kgroups, g_begin + kt * kTile, j0 + half * kTile, bbuf[half],
                      stride);
      });
}

// The C tiles of one 32 x 32 block (index 0..3 = tmm0..tmm3), clipped.
inline int block_tiles(float* Y, size_t ldy, size_t i0, size_t mr, size_t j0, size_t n_out,
                       CTile* c) {
  int n = 0;
  for (size_t ri = 0; ri < 2; ++ri)
    for (size_t cj = 0; cj < 2; ++cj) {
      const size_t r0 = ri * kTile, col0 = j0 + cj * kTile;
      CTile t{Y + (i0 + r0) * ldy + col0, ldy, 0, 0};
      if (r0 < mr && col0 < n_out) {
        t.rows = min_sz(kTile, mr - r0);
        t.cols = min_sz(kTile, n_out - col0);
      }
      c[ri * 2 + cj] = t;
      n += t.rows ? 1 : 0;
    }
  return n;
}

// Y[m][N] = X[m][K] · Wᵀ, W bf16 vnni2 [K/2][N][2]; K even, m >= 1.
inline void amx_bf16_gemm_16x16(const WeightView& w, const float* X, size_t ldx, size_t m,
                                float* Y, size_t ldy) {
  const size_t n_out = w.rows, k = w.cols, kpairs = k / 2;
  const uint8_t* wd = static_cast<const uint8_t*>(w.data);
  alignas(64) uint16_t panel[kBlock][kKcBf16];
  alignas(64) uint32_t cbuf[kTile][kTile];
  ensure_configured();
  for (size_t i0 = 0; i0 < m; i0 += kBlock) {
    const size_t mr = min_sz(kBlock, m - i0);
    const bool two_rows = mr > kTile;
    for (size_t k0 = 0; k0 < k; k0 += kKcBf16) {
      const size_t kc = min_sz(kKcBf16, k - k0), kc_pad = round_up(kc, 32);
      const bool first = k0 == 0;
      pack_a_bf16(X + i0 * ldx, ldx, mr, two_rows ? kBlock : kTile, k0, kc, kc_pad, panel);
      for (size_t j0 = 0; j0 < n_out; j0 += kBlock) {
        CTile c[4];
        block_tiles(Y, ldy, i0, mr, j0, n_out, c);
        const bool two_cols = c[1].rows != 0;
        for (int t = 0; t < 4; ++t)
          if (c[t].rows) c_begin(t, c[t], first, cbuf);
        block_chunk<0>(reinterpret_cast<const uint8_t*>(panel), kKcBf16 * 2, two_rows, wd, n_out,
                       kpairs, k0 / 2, kc_pad / 32, j0, two_cols);
        for (int t = 0; t < 4; ++t)
          if (c[t].rows) c_store_raw(t, c[t], cbuf);
      }
    }
  }
}

// Y[m][N] = X[m][K] · Wᵀ, W i8 vnni4 [K/4][N][4] with w.scales[N]; K % 4 == 0.
inline void amx_int8_gemm_16x16(const WeightView& w, const float* X, size_t ldx, size_t m,
                                float* Y, size_t ldy) {
  const size_t n_out = w.rows, k = w.cols, kquads = k / 4;
  const uint8_t* wd = static_cast<const uint8_t*>(w.data);
  alignas(64) int8_t panel[kBlock][kKcI8];
  alignas(64) uint32_t cbuf[kTile][kTile];
  float sx[kBlock];
  const canonical_i8::Steps& steps = canonical_i8::steps();
  ensure_configured();
  for (size_t i0 = 0; i0 < m; i0 += kBlock) {
    const size_t mr = min_sz(kBlock, m - i0);
    const bool two_rows = mr > kTile;
    for (size_t r = 0; r < kBlock; ++r) sx[r] = r < mr ? steps.row_scale(X + (i0 + r) * ldx, k) : 0.0f;
    for (size_t k0 = 0; k0 < k; k0 += kKcI8) {
      const size_t kc = min_sz(kKcI8, k - k0), kc_pad = round_up(kc, 64);
      const bool first = k0 == 0, last = k0 + kc == k;
      pack_a_i8(steps, X + i0 * ldx, ldx, mr, two_rows ? kBlock : kTile, k0, kc, kc_pad, sx,
                panel);
      for (size_t j0 = 0; j0 < n_out; j0 += kBlock) {
        CTile c[4];
        block_tiles(Y, ldy, i0, mr, j0, n_out, c);
        const bool two_cols = c[1].rows != 0;
        for (int t = 0; t < 4; ++t)
          if (c[t].rows) c_begin(t, c[t], first, cbuf);
        block_chunk<1>(reinterpret_cast<const uint8_t*>(panel), kKcI8, two_rows, wd, n_out, kquads,
                       k0 / 4, kc_pad / 64, j0, two_cols);
        for (int t = 0; t < 4; ++t) {
          if (!c[t].rows) continue;
          if (last) {
            c_store_scaled(steps, t, c[t], sx + (t / 2) * kTile,
                           w.scales + j0 + (t % 2) * kTile, cbuf);
          } else {
            c_store_raw(t, c[t], cbuf);
          }
        }
      }
    }
  }
}

// ---- plain bf16 weights: Yᵀ = W · Xᵀ --------------------------------------
//
// A plain bf16 weight [N][K] is row-major, so 16 weight rows x 32 columns are
// exactly an A tile (row = one output, 32 bf16 = 64 bytes): full A tiles load
// straight from the model with stride 2K bytes (zero copy). The activations
// become the B operand: rounded to bf16 (RNE, as f32_to_bf16) and packed into
// VNNI pairs, panel[g][p][i] = (x[16g+i][k0+2p], x[16g+i][k0+2p+1]), low half
// the even column, one 64-byte B tile row per k pair and 16 activation rows.
// The C tiles then hold Yᵀ: C tile (ri, cj) element (r, c) is
// Y[i0 + 16 cj + c][j0 + 16 ri + r], and goes to Y (and, for later K chunks,
// back into the tile) through a 16 x 16 transposing buffer.
// Edges: A tiles that cross N or K are copied into a zero-padded stack buffer;
// missing activation rows and K columns are zeros in the panel (an odd K
// pairs its last column with 0); C tiles that cross M or N are clipped.

// B operand panel: two tiles' worth (activation rows i0..i0+15, i0+16..i0+31)
// of kKcBf16 / 2 k pairs each. 32 KiB, like the vnni2 kernel's A panel.
using PairPanel = uint32_t[2][kKcBf16 / 2][kTile];

inline uint32_t bf16_pair(float even, float odd) {
  return static_cast<uint32_t>(to_bf16(even)) | (static_cast<uint32_t>(to_bf16(odd)) << 16);
}

// panel[g][0..kc_pad/2)[i] for groups g < halves: rows r = 16g + i < mr from
// X[r][k0..k0+kc), zero beyond kc and for r >= mr.
inline void pack_b_pairs(const float* X, size_t ldx, size_t mr, size_t halves, size_t k0,
                         size_t kc, size_t kc_pad, PairPanel& panel) {
  const size_t pairs = kc / 2, pairs_pad = kc_pad / 2;
  for (size_t r = 0; r < halves * kTile; ++r) {
    uint32_t(*col)[kTile] = panel[r / kTile];
    const size_t i = r % kTile;
    size_t p = 0;
    if (r < mr) {
      const float* src = X + r * ldx + k0;
      for (; p < pairs; ++p) col[p][i] = bf16_pair(src[2 * p], src[2 * p + 1]);
      if (kc % 2) col[p++][i] = bf16_pair(src[2 * pairs], 0.0f);
    }
    for (; p < pairs_pad; ++p) col[p][i] = 0;
  }
}

// The A tile of weight rows j0..j0+15 and columns c0..c0+31 (j0 < n_out,
// c0 < k): straight from W when whole, else a zero-padded copy in buf.
inline const void* a_tile_plain(const uint16_t* w, size_t n_out, size_t k, size_t j0, size_t c0,
                                uint16_t (*buf)[32], size_t* stride) {
  if (j0 + kTile <= n_out && c0 + 32 <= k) {
    *stride = k * 2;
    return w + j0 * k + c0;
  }
  const size_t rows = min_sz(kTile, n_out - j0), cols = min_sz(32, k - c0);
  for (size_t r = 0; r < kTile; ++r) {
    size_t c = 0;
    if (r < rows) {
      std::memcpy(buf[r], w + (j0 + r) * k + c0, cols * 2);
      c = cols;
    }
    std::memset(buf[r] + c, 0, (32 - c) * 2);
  }
  *stride = 64;
  return buf;
}

// The transposed C tiles of one block: CTile::rows counts weight rows (the
// tile's rows), CTile::cols activation rows, element (r, c) at y[c * ldy + r].
inline void block_tiles_t(float* Y, size_t ldy, size_t i0, size_t mr, size_t j0, size_t n_out,
                          CTile* c) {
  for (size_t ri = 0; ri < 2; ++ri)
    for (size_t cj = 0; cj < 2; ++cj) {
      const size_t w0 = j0 + ri * kTile, a0 = cj * kTile;
      CTile t{Y + (i0 + a0) * ldy + w0, ldy, 0, 0};
      if (w0 < n_out && a0 < mr) {
        t.rows = min_sz(kTile, n_out - w0);
        t.cols = min_sz(kTile, mr - a0);
      }
      c[ri * 2 + cj] = t;
    }
}

inline void ct_begin(int t, const CTile& c, bool first, uint32_t (*buf)[kTile]) {
  if (first) return tile_zero_n(t);
  std::memset(buf, 0, kTile * kTile * 4);
  for (size_t a = 0; a < c.cols; ++a)
    for (size_t r = 0; r < c.rows; ++r) std::memcpy(&buf[r][a], c.y + a * c.ldy + r, 4);
  tile_load_n(t, buf, kTile * 4);
}

inline void ct_store(int t, const CTile& c, uint32_t (*buf)[kTile]) {
  tile_store_n(t, buf, kTile * 4);
  for (size_t a = 0; a < c.cols; ++a)
    for (size_t r = 0; r < c.rows; ++r) std::memcpy(c.y + a * c.ldy + r, &buf[r][a], 4);
}

// Y[m][N] = X[m][K] · Wᵀ, W bf16 plain [N][K] (any K >= 1), m >= 1, as
// Yᵀ = W · Xᵀ on tiles. Nothing is allocated: ~35 KiB of stack.
inline void amx_bf16_plain_gemm_16x16(const WeightView& w, const float* X, size_t ldx, size_t m,
                                      float* Y, size_t ldy) {
  const size_t n_out = w.rows, k = w.cols;
  const uint16_t* wd = static_cast<const uint16_t*>(w.data);
  alignas(64) PairPanel panel;
  alignas(64) uint16_t abuf[2][kTile][32];
  alignas(64) uint32_t cbuf[kTile][kTile];
  ensure_configured();
  for (size_t i0 = 0; i0 < m; i0 += kBlock) {
    const size_t mr = min_sz(kBlock, m - i0);
    const bool two_cols = mr > kTile;  // a second activation (B) tile
    for (size_t k0 = 0; k0 < k; k0 += kKcBf16) {
      const size_t kc = min_sz(kKcBf16, k - k0), kc_pad = round_up(kc, 32);
      const bool first = k0 == 0;
      pack_b_pairs(X + i0 * ldx, ldx, mr, two_cols ? 2 : 1, k0, kc, kc_pad, panel);
      for (size_t j0 = 0; j0 < n_out; j0 += kBlock) {
        CTile c[4];
        block_tiles_t(Y, ldy, i0, mr, j0, n_out, c);
        const bool two_rows = c[2].rows != 0;  // a second weight (A) tile
        for (int t = 0; t < 4; ++t)
          if (c[t].rows) ct_begin(t, c[t], first, cbuf);
        tile_block<0>(
            kc_pad / 32, two_rows, two_cols,
            [&](size_t kt, size_t half, size_t* stride) {
              return a_tile_plain(wd, n_out, k, j0 + half * kTile, k0 + kt * 32, abuf[half],
                                  stride);
            },
            [&](size_t kt, size_t half, size_t* stride) -> const void* {
              *stride = kTile * 4;
              return panel[half][kt * kTile];
            });
        for (int t = 0; t < 4; ++t)
          if (c[t].rows) ct_store(t, c[t], cbuf);
      }
    }
  }
}

// When the tile kernels apply (else the caller delegates): prefill (m >= 16)
// on bf16 vnni2 or plain weights, or scaled i8 vnni4 weights.
inline bool tiles_apply(const WeightView& w, size_t m) {
  if (m < kTile || !w.data || w.rows == 0) return false;
  if (w.dtype == DType::bf16 && w.layout == Layout::vnni2) return w.cols % 2 == 0 && w.cols > 0;
  if (w.dtype == DType::bf16 && w.layout == Layout::plain) return w.cols > 0;
  if (w.dtype == DType::i8 && w.layout == Layout::vnni4)
    return w.cols % 4 == 0 && w.cols > 0 && w.scales != nullptr;
  return false;
}

inline void tile_matmul(const WeightView& w, const float* X, size_t ldx, size_t m, float* Y,
                        size_t ldy) {
  if (w.dtype == DType::bf16 && w.layout == Layout::plain) {
    amx_bf16_plain_gemm_16x16(w, X, ldx, m, Y, ldy);
  } else if (w.dtype == DType::bf16) {
    amx_bf16_gemm_16x16(w, X, ldx, m, Y, ldy);
  } else {
    amx_int8_gemm_16x16(w, X, ldx, m, Y, ldy);
  }
}

}  // namespace AMXQA_TILE_NS
}  // namespace amxqa
