// tile_product_impl.h — the trainer's tile product (sgemm_bf16.h's
// TileProduct), written once against tile_ops.h: include after defining
// AMXQA_TILES_REAL (tile_product_amx.cpp) or AMXQA_TILES_EMULATED
// (tile_product_emulated.cpp). It reuses amx_gemm_impl.h's tile
// configuration and 32 x 32 block (tile_block: C in tmm0..3, A in tmm4/5, B
// in tmm6/7).
//
// Unlike the runtime's prefill kernels, both operands arrive packed (bf16
// pairs, zero-padded to whole tiles, pack_tile_a / pack_tile_b), so every
// tile loads straight from them, the whole of k accumulates in the C tiles
// (no k chunks, no partial sums reloaded), and alpha and beta are applied as
// each C tile is stored: one pass over C.
#pragma once
#include "kernels/amx/amx_gemm_impl.h"

namespace amxqa {
namespace AMXQA_TILE_NS {

// C[rows][cols] = alpha · acc (+ beta · C) from a stored 16 x 16 tile.
inline void store_scaled(const float (*acc)[kTile], size_t rows, size_t cols, float alpha,
                         float beta, float* c, size_t ldc) {
  for (size_t r = 0; r < rows; ++r, c += ldc) {
    const float* a = acc[r];
    if (beta == 0.0f) {
      for (size_t j = 0; j < cols; ++j) c[j] = alpha * a[j];
    } else {
      for (size_t j = 0; j < cols; ++j) c[j] = alpha * a[j] + beta * c[j];
    }
  }
}

inline void tile_product(size_t m, size_t n, size_t kpairs, float alpha, const uint32_t* A,
                         size_t lda, const uint32_t* B, size_t ldb, float beta, float* C,
                         size_t ldc) {
  alignas(64) float acc[kTile][kTile];
  ensure_configured();
  const size_t ktiles = kpairs / kTile;
  for (size_t i0 = 0; i0 < m; i0 += kBlock) {
    const bool two_rows = i0 + kTile < m;
    for (size_t j0 = 0; j0 < n; j0 += kBlock) {
      const bool two_cols = j0 + kTile < n;
      AMXQA_TILE_ZERO(0);
      AMXQA_TILE_ZERO(1);
      AMXQA_TILE_ZERO(2);
      AMXQA_TILE_ZERO(3);
      tile_block<0>(
          ktiles, two_rows, two_cols,
          [&](size_t kt, size_t half, size_t* stride) -> const void* {
            *stride = lda * 4;
            return A + (i0 + half * kTile) * lda + kt * kTile;
          },
          [&](size_t kt, size_t half, size_t* stride) -> const void* {
            *stride = ldb * 4;
            return B + kt * kTile * ldb + j0 + half * kTile;
          });
      for (int t = 0; t < 4; ++t) {
        const size_t r0 = i0 + (t / 2) * kTile, c0 = j0 + (t % 2) * kTile;
        if (r0 >= m || c0 >= n) continue;
        tile_store_n(t, acc, kTile * 4);
        store_scaled(acc, min_sz(kTile, m - r0), min_sz(kTile, n - c0), alpha, beta,
                     C + r0 * ldc + c0, ldc);
      }
    }
  }
}

}  // namespace AMXQA_TILE_NS
}  // namespace amxqa
