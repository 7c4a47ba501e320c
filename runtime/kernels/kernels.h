// kernels.h — the ISA-dispatched micro-kernels: every matrix product of the
// runtime and of the trainer goes through one of these tables, so what the
// trainer measures is what ships. One table per ISA (kernels_scalar.cpp is
// the oracle; kernels_avx2.cpp, kernels_avx512.cpp, amx/kernels_amx.cpp on
// x86-64, kernels_neon.cpp and kernels_dotprod.cpp on aarch64: NEON.md).
// Kernel names say their ISA; each has a test (tests/runtime/test_kernels.cpp)
// and a benchmark (bench/bench_kernels.cpp).
#pragma once
#include <cstddef>
#include <cstdint>

namespace amxqa {

enum class DType : uint8_t { f32 = 0, bf16 = 1, i8 = 2 };      // = amxqa.fb::DType
enum class Layout : uint8_t { plain = 0, vnni2 = 1, vnni4 = 2 }; // = amxqa.fb::Layout

// A weight matrix used in place (zero copy). Logical shape [rows = out][cols = in].
// plain: row-major. vnni2 (bf16): [cols/2][rows][2]. vnni4 (i8): [cols/4][rows][4].
// i8 rows carry an f32 scale each: w[r][c] = scales[r] * q[r][c].
struct WeightView {
  DType dtype = DType::f32;
  Layout layout = Layout::plain;
  uint32_t rows = 0, cols = 0;
  const void* data = nullptr;
  const float* scales = nullptr;  // i8 only
  // i8 only: 7 when every weight is in [-64, 63] (the file's
  // Tensor.weight_bits, checked when the model is opened), else 8. The
  // product is canonical_i8.h's either way; 7 lets AVX2 use vpmaddubsw,
  // whose pair sums then cannot saturate.
  uint8_t bits = 8;
};

// bf16 <-> f32 (round to nearest even; NaN stays NaN).
uint16_t f32_to_bf16(float f);
float bf16_to_f32(uint16_t b);

// For bf16 weights, matvec, matmul and rows_dot compute canonical_bf16.h's
// product in every table (the tiles' arithmetic), for i8 weights
// canonical_i8.h's (activations quantised per row, exact int32 sums), so
// every table gives the same bits; f32 weights are summed in each table's
// own order.
struct Kernels {
  const char* name;  // "scalar", "avx2_fma", "avx512", "amx_bf16_16x16", ...

  // y[rows] = W x[cols]. Decode path (M = 1).
  void (*matvec)(const WeightView& w, const float* x, float* y);

  // Y[m][rows] = X[m][cols] · Wᵀ, X row stride ldx, Y row stride ldy (in floats).
  // Prefill path (M > 1).
  void (*matmul)(const WeightView& w, const float* X, size_t ldx, size_t m, float* Y, size_t ldy);

  // out[i] = W[ids[i]] · x for n selected rows: the extractive readout computes
  // only the rows the decoding constraint allows.
  void (*rows_dot)(const WeightView& w, const uint32_t* ids, size_t n, const float* x,
                   float* out);

  // out[i] += rows[i] · x for n f32 rows of d floats (row stride ld): the
  // start pointer's score of every passage position. Summed in the canonical
  // order below, so every table gives the same bits.
  void (*dot_rows)(const float* rows, size_t ld, size_t n, const float* x, size_t d, float* out);

  // In-place softmax over n values (n >= 1); returns log Σ exp(x - max) + max.
  // exp is canonical_exp below and the sum is in the canonical order, so
  // every table gives the same bits (unlike libm expf, which is not vector).
  float (*softmax)(float* x, size_t n);

  // General fp32 GEMM for the trainer and f32 models, row-major:
  // C[m][n] = alpha * op(A)[m][k] · op(B)[k][n] + beta * C,
  // op(A) = A (lda >= k) or Aᵀ (A is [k][m], lda >= m); likewise B.
  void (*sgemm)(bool trans_a, bool trans_b, size_t m, size_t n, size_t k, float alpha,
                const float* A, size_t lda, const float* B, size_t ldb, float beta, float* C,
                size_t ldc);
  // C[m][n] = alpha · (A[m][k] · op(B)[k][n]), op(B) = B ([k][n], ldb >= n) or
  // Bᵀ (B is [n][k], ldb >= k); C is only written. Prefill attention's two
  // products (scale · q kᵀ, then probs · v). In the canonical f32 order below,
  // so every table gives the same bits.
  // causal (kNoCausalLimit: none) is the causal mask of a block of queries:
  // row r sees the first causal + r keys. The scores (trans_b) of row r are
  // then written for columns j < causal + r only (the rest are left as they
  // were: softmax zeroes them); the output (probs · v) of row r sums the
  // depth steps i < causal + r only (its probabilities past them are zero).
  void (*attend_gemm)(bool trans_b, size_t m, size_t n, size_t k, float alpha, const float* A,
                      size_t lda, const float* B, size_t ldb, float* C, size_t ldc,
                      size_t causal);

  // matmul of one X (m > 1 rows) by n weights: Ys[i][m][ws[i].rows], row
  // stride ldys[i], each with matmul's bits. Attention's q, k and v read the
  // same input: a table whose int8 products quantise the activations does
  // so once for all n. nullptr (or a table given mixed weights): the caller
  // runs matmul n times (run_matmul_shared below).
  void (*matmul_shared)(const WeightView* ws, size_t n, const float* X, size_t ldx, size_t m,
                        float* const* Ys, const size_t* ldys) = nullptr;
};

// k.matmul_shared where the table has it, else matmul once per weight.
inline void run_matmul_shared(const Kernels& k, const WeightView* ws, size_t n, const float* X,
                              size_t ldx, size_t m, float* const* Ys, const size_t* ldys) {
  if (k.matmul_shared) return k.matmul_shared(ws, n, X, ldx, m, Ys, ldys);
  for (size_t i = 0; i < n; ++i) k.matmul(ws[i], X, ldx, m, Ys[i], ldys[i]);
}

constexpr size_t kNoCausalLimit = SIZE_MAX;

// Row r's limit under attend_gemm's causal mask, capped at `cap`.
inline size_t causal_limit(size_t causal, size_t r, size_t cap) {
  return causal >= cap || r >= cap - causal ? cap : causal + r;
}

// attend_gemm's canonical order, which the scalar table spells out and the
// SIMD tables follow: each C element starts at +0, fuses a[i]·b[i] for
// i = 0 … k−1 (output rows under the causal mask: i < causal + r) in
// ascending order (one rounding each, no flushing), and is multiplied by
// alpha once at the end. (Lanes over C's columns run it at
// full FMA rate, which is why the depth is not split into lanes here.)

// The canonical order of dot_rows and softmax's sum, which the scalar table
// spells out and the SIMD tables follow lane for lane: 16 lanes, lane l
// accumulating the terms c ≡ l (mod 16) in ascending c (dot_rows: one fused
// multiply-add each), then lanes l and l+8 added, then l and l+4, l and l+2,
// l and l+1 (lane 0 holds the result).
constexpr size_t kCanonicalLanes = 16;

// The table for an ISA, or nullptr if this build or this CPU cannot run it.
// isa values are amxqa_isa (include/amxqa.h).
const Kernels* kernels_for_isa(int isa);

const Kernels& kernels_scalar();
const Kernels* kernels_avx2();    // nullptr if not compiled in
const Kernels* kernels_avx512();  // nullptr if not compiled in
const Kernels* kernels_amx();     // real tiles; nullptr if not compiled in
const Kernels* kernels_amx_emulated();
const Kernels* kernels_neon();          // aarch64 only (kernels_neon.cpp), else nullptr
const Kernels* kernels_neon_dotprod();  // aarch64 only (kernels_dotprod.cpp), else nullptr

}  // namespace amxqa
