// kernels_amx_emulated.cpp — the "amx_emulated" table (AMXQA_ISA_AMX_EMULATED):
// the real tile kernels' source (amx_gemm_impl.h) bound to the portable tile
// emulator, so every CPU can test the AMX code path end to end. Tiles serve
// prefill matmuls (m >= 16) on bf16 (vnni2 or plain) and i8 vnni4 weights; every other
// product goes to the scalar oracle, exactly as the real table delegates to
// AVX-512. For correctness, not speed.
#define AMXQA_TILES_EMULATED 1
#include "kernels/amx/amx_gemm_impl.h"
#include "kernels/amx/amx_backends.h"

namespace amxqa {
namespace {

void matvec_amx_emulated(const WeightView& w, const float* x, float* y) {
  kernels_scalar().matvec(w, x, y);
}

void matmul_amx_emulated(const WeightView& w, const float* X, size_t ldx, size_t m, float* Y,
                         size_t ldy) {
  if (amx_emulated::tiles_apply(w, m)) {
    amx_emulated::tile_matmul(w, X, ldx, m, Y, ldy);
  } else {
    kernels_scalar().matmul(w, X, ldx, m, Y, ldy);
  }
}

void rows_dot_amx_emulated(const WeightView& w, const uint32_t* ids, size_t n, const float* x,
                           float* out) {
  kernels_scalar().rows_dot(w, ids, n, x, out);
}

void dot_rows_amx_emulated(const float* rows, size_t ld, size_t n, const float* x, size_t d,
                           float* out) {
  kernels_scalar().dot_rows(rows, ld, n, x, d, out);
}

float softmax_amx_emulated(float* x, size_t n) { return kernels_scalar().softmax(x, n); }

void sgemm_amx_emulated(bool trans_a, bool trans_b, size_t m, size_t n, size_t k, float alpha,
                        const float* A, size_t lda, const float* B, size_t ldb, float beta,
                        float* C, size_t ldc) {
  kernels_scalar().sgemm(trans_a, trans_b, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}

void attend_gemm_amx_emulated(bool trans_b, size_t m, size_t n, size_t k, float alpha,
                              const float* A, size_t lda, const float* B, size_t ldb, float* C,
                              size_t ldc, size_t causal) {
  kernels_scalar().attend_gemm(trans_b, m, n, k, alpha, A, lda, B, ldb, C, ldc, causal);
}

const Kernels kAmxEmulated = {"amx_emulated",        matvec_amx_emulated,
                              matmul_amx_emulated,   rows_dot_amx_emulated,
                              dot_rows_amx_emulated, softmax_amx_emulated,
                              sgemm_amx_emulated,    attend_gemm_amx_emulated};

}  // namespace

const Kernels* kernels_amx_emulated() { return &kAmxEmulated; }

namespace amx_backend {
void release_emulated_tiles() {
  amx_emulated::release_tiles();
  amx_emu::tilerelease();  // also whatever a test configured by hand
}
}  // namespace amx_backend

}  // namespace amxqa
