// sgemm_bf16.h — trainer-only GEMM kernels (library amxqa_training_kernels,
// not part of libamxqa; see sgemm_bf16_avx512.cpp, sgemm_bf16_tiles.cpp,
// tile_pack_avx512.cpp and tile_product_impl.h).
#pragma once
#include <cstddef>
#include <cstdint>

#include "kernels/kernels.h"

namespace amxqa {

// Mixed-precision sgemm (Kernels::sgemm's contract): op(A) and op(B) are
// rounded to bf16 (RNE) as they are packed and multiplied by vdpbf16ps into
// f32 accumulators. Returns false, touching nothing, when the CPU lacks
// AVX512-BF16 (the caller then takes the f32 sgemm).
bool sgemm_bf16_avx512(bool trans_a, bool trans_b, size_t m, size_t n, size_t k, float alpha,
                       const float* A, size_t lda, const float* B, size_t ldb, float beta,
                       float* C, size_t ldc);

// ---- the tile product's operands -----------------------------------------
//
// Both operands are bf16 pairs along k (one uint32, the low half the even k,
// RNE as vcvtne2ps2bf16), zero-padded to whole tiles, so every tile loads
// straight from them with a stride and nothing is copied at product time:
//   A operand  [tile_rows(m)][tile_pairs(k)]  row i = op(A)'s row i along k
//              (one A tile: 16 rows x 16 pairs)
//   B operand  [tile_pairs(k)][tile_rows(n)]  row p = pair p of op(B)'s columns
//              (VNNI; one B tile: 16 pairs x 16 columns)
// The packers are AVX-512 vector code (16 x 16 in-register transposes where
// the source runs the other way); they need AVX512-BF16, which every AMX CPU
// has, and return false, touching nothing, without it.
inline size_t tile_rows(size_t v) { return (v + 15) / 16 * 16; }
inline size_t tile_pairs(size_t k) { return ((k + 1) / 2 + 15) / 16 * 16; }
// op(A) [m][k] (A [m][k], or trans_a: A [k][m]) into dst [tile_rows(m)][tile_pairs(k)].
bool pack_tile_a(bool trans_a, size_t m, size_t k, const float* A, size_t lda, uint32_t* dst);
// op(B) [k][n] (B [k][n], or trans_b: B [n][k]) into dst [tile_pairs(k)][tile_rows(n)].
bool pack_tile_b(bool trans_b, size_t k, size_t n, const float* B, size_t ldb, uint32_t* dst);

// C[m][n] = alpha · A·B + beta · C on tiles, f32 accumulation over all of k
// in the tile registers, alpha and beta applied as each C tile is stored
// (beta == 0 never reads C). A: rows of lda pairs (lda >= kpairs), B: kpairs
// rows of ldb pairs (ldb >= tile_rows(n)); kpairs a multiple of 16
// (tile_pairs(k)); the padding rows and columns of the operands are read.
using TileProduct = void (*)(size_t m, size_t n, size_t kpairs, float alpha, const uint32_t* A,
                             size_t lda, const uint32_t* B, size_t ldb, float beta, float* C,
                             size_t ldc);
// The product on real tiles: null unless the CPU and OS allow AMX.
TileProduct tile_product_amx();
// The same source on the portable tile emulator (tests; any CPU).
TileProduct tile_product_emulated();

// The Kernels::sgemm contract on tiles: op(A) and op(B) packed by the
// packers above (per call, into per-thread scratch that only grows: trainer
// code, where allocation is allowed), then `tiles`. The product of the
// bf16-rounded operands accumulated in f32, for any m. Returns false,
// touching nothing, when tiles is null, a size is 0 or the CPU lacks
// AVX512-BF16.
bool sgemm_bf16_tiles(TileProduct tiles, bool trans_a, bool trans_b, size_t m, size_t n, size_t k,
                      float alpha, const float* A, size_t lda, const float* B, size_t ldb,
                      float beta, float* C, size_t ldc);

}  // namespace amxqa
