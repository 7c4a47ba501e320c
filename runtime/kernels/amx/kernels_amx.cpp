// kernels_amx.cpp — the real-AMX table ("amx_bf16_16x16", AMXQA_ISA_AMX):
// the tile kernels of amx_gemm_impl.h bound to the hardware instructions.
// Tiles serve prefill matmuls (m >= 16) on bf16 weights (vnni2, and plain
// row-major as Yᵀ = W · Xᵀ) and i8 vnni4 weights; decode (matvec), rows_dot,
// sgemm and other dtypes go to AVX-512 (every AMX CPU has it), or to scalar if
// that table is missing.
//
// This file is compiled with -mamx-* -mavx512*. Its table is only safe to
// *use for tiles* when amx_status().usable; each entry checks that itself, and
// the non-tile paths below are plain pointer forwarding, so calling the table
// on a CPU without AMX degrades to the scalar oracle instead of faulting.
#include "cpu/amx_detect.h"
#include "kernels/amx/amx_backends.h"
#include "kernels/kernels.h"

#if defined(__x86_64__)
#define AMXQA_TILES_REAL 1
#include "kernels/amx/amx_gemm_impl.h"

namespace amxqa {
namespace {

// Where non-tile work goes: AVX-512 only when AMX is usable (which implies
// AVX-512 hardware), otherwise scalar, which every CPU runs.
const Kernels& delegate() {
  if (amx_status().usable) {
    if (const Kernels* k = kernels_avx512()) return *k;
  }
  return kernels_scalar();
}

void matvec_amx(const WeightView& w, const float* x, float* y) { delegate().matvec(w, x, y); }

void matmul_amx(const WeightView& w, const float* X, size_t ldx, size_t m, float* Y,
                size_t ldy) {
  if (amx_status().usable && amx_real::tiles_apply(w, m)) {
    amx_real::tile_matmul(w, X, ldx, m, Y, ldy);
  } else {
    delegate().matmul(w, X, ldx, m, Y, ldy);
  }
}

void rows_dot_amx(const WeightView& w, const uint32_t* ids, size_t n, const float* x,
                  float* out) {
  delegate().rows_dot(w, ids, n, x, out);
}

void dot_rows_amx(const float* rows, size_t ld, size_t n, const float* x, size_t d, float* out) {
  delegate().dot_rows(rows, ld, n, x, d, out);
}

float softmax_amx(float* x, size_t n) { return delegate().softmax(x, n); }

void sgemm_amx(bool trans_a, bool trans_b, size_t m, size_t n, size_t k, float alpha,
               const float* A, size_t lda, const float* B, size_t ldb, float beta, float* C,
               size_t ldc) {
  delegate().sgemm(trans_a, trans_b, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}

void attend_gemm_amx(bool trans_b, size_t m, size_t n, size_t k, float alpha, const float* A,
                     size_t lda, const float* B, size_t ldb, float* C, size_t ldc,
                     size_t causal) {
  delegate().attend_gemm(trans_b, m, n, k, alpha, A, lda, B, ldb, C, ldc, causal);
}

const Kernels kAmx = {"amx_bf16_16x16", matvec_amx,  matmul_amx, rows_dot_amx,
                      dot_rows_amx,     softmax_amx, sgemm_amx,  attend_gemm_amx};

}  // namespace

const Kernels* kernels_amx() { return &kAmx; }

namespace amx_backend {

void release_real_tiles() {
  // t_configured is only ever set after amx_status().usable was checked.
  amx_real::release_tiles();
}

double real_bf16_tile_peak(size_t iterations) {
  if (!amx_status().usable) return 0.0;
  amx_real::ensure_configured();
  alignas(64) uint8_t zeros[16][64] = {};
  alignas(64) float sink[16][16];
  AMXQA_TILE_ZERO(0);
  AMXQA_TILE_ZERO(1);
  AMXQA_TILE_ZERO(2);
  AMXQA_TILE_ZERO(3);
  AMXQA_TILE_LOAD(4, zeros, 64);
  AMXQA_TILE_LOAD(5, zeros, 64);
  AMXQA_TILE_LOAD(6, zeros, 64);
  AMXQA_TILE_LOAD(7, zeros, 64);
  for (size_t i = 0; i < iterations; ++i) {
    AMXQA_TILE_DPBF16PS(0, 4, 6);
    AMXQA_TILE_DPBF16PS(1, 4, 7);
    AMXQA_TILE_DPBF16PS(2, 5, 6);
    AMXQA_TILE_DPBF16PS(3, 5, 7);
  }
  AMXQA_TILE_STORE(0, sink, 64);
  // 4 tiles x 16 x 16 outputs x 32 products, 2 flops each.
  return static_cast<double>(iterations) * 4.0 * 16 * 16 * 32 * 2;
}

}  // namespace amx_backend
}  // namespace amxqa

#else  // not x86-64: no real tiles in this build

namespace amxqa {
const Kernels* kernels_amx() { return nullptr; }
namespace amx_backend {
void release_real_tiles() {}
double real_bf16_tile_peak(size_t) { return 0.0; }
}  // namespace amx_backend
}  // namespace amxqa

#endif
