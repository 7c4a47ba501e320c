// sgemm_bf16_tiles.cpp — the Kernels::sgemm contract on tiles (see
// sgemm_bf16.h): both operands packed per call into per-thread scratch, then
// the tile product with alpha and beta in its store. The trainer packs its
// weights once per optimizer step instead (model/train_gemm.cpp) and calls
// the product directly; this entry serves activations × activations and the
// tests.
#include <vector>

#include "kernels/training/sgemm_bf16.h"

namespace amxqa {

bool sgemm_bf16_tiles(TileProduct tiles, bool trans_a, bool trans_b, size_t m, size_t n, size_t k,
                      float alpha, const float* A, size_t lda, const float* B, size_t ldb,
                      float beta, float* C, size_t ldc) {
  if (!tiles || m == 0 || n == 0 || k == 0) return false;
  const size_t kp = tile_pairs(k);
  thread_local std::vector<uint32_t> a, b;
  if (a.size() < tile_rows(m) * kp) a.resize(tile_rows(m) * kp);
  if (b.size() < kp * tile_rows(n)) b.resize(kp * tile_rows(n));
  if (!pack_tile_a(trans_a, m, k, A, lda, a.data())) return false;
  pack_tile_b(trans_b, k, n, B, ldb, b.data());
  tiles(m, n, kp, alpha, a.data(), kp, b.data(), tile_rows(n), beta, C, ldc);
  return true;
}

}  // namespace amxqa
