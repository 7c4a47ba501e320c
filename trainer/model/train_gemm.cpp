// train_gemm.cpp — the trainer's one door to matrix products: the runtime's
// sgemm (AVX-512 when the CPU has it, else AVX2+FMA, else the scalar oracle),
// chosen once under the AMXQA_MAX_ISA cap, or a bf16 variant when the stage
// computes in bf16: AMX tiles where the CPU and OS allow them (their peak is
// several times any vector unit's), else AVX512-BF16.
#include <cstring>

#include "amxqa.h"
#include "cpu/isa_select.h"
#include "kernels/training/sgemm_bf16.h"
#include "model/train_impl.h"

namespace amxqa::train {

// The best ISA this CPU runs under the AMXQA_MAX_ISA cap, read once: the
// runtime's own choice (cpu/isa_select.h), so AMXQA_MAX_ISA=avx2 measures the
// trainer's AVX2 speed on an AVX-512 or AMX machine.
amxqa_isa train_isa() {
  static const amxqa_isa isa = [] {
    amxqa_isa best = AMXQA_ISA_SCALAR;
    resolve_isa(AMXQA_ISA_AUTO, max_isa_from_env(nullptr, 0, nullptr), &best);
    return best;
  }();
  return isa;
}

const Kernels& train_kernels() {
  static const Kernels* table = [] {
    const Kernels* t = nullptr;
    // f32 products on AMX machines run on AVX-512 (tiles are bf16/int8).
    if (train_isa() >= AMXQA_ISA_AVX512) t = kernels_avx512();
    if (!t && train_isa() >= AMXQA_ISA_AVX2) t = kernels_avx2();
    return t ? t : &kernels_scalar();
  }();
  return *table;
}

namespace {
bool g_bf16 = false;
const Kernels* g_tiles = nullptr;  // the real tile table while bf16 compute is on
}  // namespace

void train_sgemm(bool ta, bool tb, size_t m, size_t n, size_t k, float alpha, const float* A,
                 size_t lda, const float* B, size_t ldb, float beta, float* C, size_t ldc) {
  if (g_tiles && sgemm_bf16_tiles(g_tiles, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc))
    return;
  if (g_bf16 && sgemm_bf16_avx512(ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc)) return;
  train_kernels().sgemm(ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}

bool set_bf16_compute(bool on) {
  // null without usable tiles or under a lower AMXQA_MAX_ISA
  g_tiles = on && train_isa() == AMXQA_ISA_AMX ? kernels_for_isa(AMXQA_ISA_AMX) : nullptr;
  g_bf16 = on && (g_tiles || (train_isa() >= AMXQA_ISA_AVX512 && __builtin_cpu_supports("avx512bf16")));
  return g_bf16;
}

bool bf16_compute_on_tiles() { return g_tiles != nullptr; }

void gemm_nt(size_t m, size_t n, size_t k, const float* A, size_t lda, const float* B,
             size_t ldb, float* C, size_t ldc, float beta, float alpha) {
  if (m == 0 || n == 0) return;
  train_sgemm(false, true, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}

void gemm_nn(size_t m, size_t n, size_t k, const float* A, size_t lda, const float* B,
             size_t ldb, float* C, size_t ldc, float beta, float alpha) {
  if (m == 0 || n == 0) return;
  train_sgemm(false, false, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}

void gemm_tn_acc(size_t m, size_t n, size_t k, const float* A, size_t lda, const float* B,
                 size_t ldb, float* C, size_t ldc, float alpha) {
  if (m == 0 || n == 0 || k == 0) return;
  train_sgemm(true, false, m, n, k, alpha, A, lda, B, ldb, 1.f, C, ldc);
}

}  // namespace amxqa::train

namespace amxqa::train {

void stacked_forward(Work& im, const Stacked& s, const float* U, size_t n, size_t d,
                     float* const* out) {
  size_t R = 0;
  for (size_t i = 0; i < s.count; ++i) R += s.rows[i];
  float* W = grow(im.wcat, R * d);
  for (size_t i = 0, r = 0; i < s.count; r += s.rows[i], ++i)
    std::memcpy(W + r * d, s.w[i], s.rows[i] * d * sizeof(float));
  float* Y = grow(im.ycat, n * R);
  gemm_nt(n, R, d, U, d, W, d, Y, R);
  for (size_t i = 0, c = 0; i < s.count; c += s.rows[i], ++i)
    for (size_t p = 0; p < n; ++p)
      std::memcpy(out[i] + p * s.rows[i], Y + p * R + c, s.rows[i] * sizeof(float));
}

void stacked_backward(Work& im, const Stacked& s, const float* U, size_t n, size_t d,
                      const float* const* dout, float* din, bool accumulate) {
  size_t R = 0;
  for (size_t i = 0; i < s.count; ++i) R += s.rows[i];
  float* W = grow(im.wcat, R * d);
  for (size_t i = 0, r = 0; i < s.count; r += s.rows[i], ++i)
    std::memcpy(W + r * d, s.w[i], s.rows[i] * d * sizeof(float));
  float* dY = grow(im.ycat, n * R);
  for (size_t i = 0, c = 0; i < s.count; c += s.rows[i], ++i)
    for (size_t p = 0; p < n; ++p)
      std::memcpy(dY + p * R + c, dout[i] + p * s.rows[i], s.rows[i] * sizeof(float));
  float* G = grow(im.gcat, R * d);
  std::memset(G, 0, R * d * sizeof(float));
  gemm_tn_acc(R, d, n, dY, R, U, d, G, d);
  for (size_t i = 0, r = 0; i < s.count; r += s.rows[i], ++i) {
    float* g = s.g[i];
    const float* src = G + r * d;
    for (size_t j = 0; j < s.rows[i] * d; ++j) g[j] += src[j];
  }
  gemm_nn(n, d, R, dY, R, W, d, din, d, accumulate ? 1.f : 0.f);
}

}  // namespace amxqa::train
