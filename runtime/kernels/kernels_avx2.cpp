// kernels_avx2.cpp — the AVX2 + FMA table ("avx2_fma"): f32 matvec / matmul /
// rows_dot and a blocked sgemm (6×16 ymm micro-kernel, 12 accumulators, under
// gemm_blocking.h); bf16 weights (plain or vnni2) run canonical_bf16_avx2.cpp,
// which gives the tiles' bits; vnni4 i8 weights run canonical_i8_avx2.cpp
// (exact int32 sums, the same bits as every table). Other i8 matrices fall
// back to the scalar table.
#include <immintrin.h>

#include <cmath>
#include <cstring>

#include "kernels/attend_gemm_avx2.h"
#include "kernels/canonical_i8_x86.h"
#include "kernels/canonical_bf16_avx2.h"
#include "kernels/gemm_blocking.h"
#include "kernels/bf16_inline.h"
#include "kernels/canonical_exp.h"
#include "kernels/kernels.h"

namespace amxqa {
namespace {

constexpr size_t kMR = 6, kNR = 16, kKC = 256, kNC = 128;

// Lane mask for the first n (0..8) floats of a ymm (for maskload/maskstore).
inline __m256i lanes8(size_t n) {
  const __m256i idx = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(n > 8 ? 8 : n)), idx);
}

inline void store_row(float* c, __m256 acc0, __m256 acc1, __m256i m0, __m256i m1, __m256 alpha,
                      float beta) {
  __m256 r0 = _mm256_mul_ps(alpha, acc0), r1 = _mm256_mul_ps(alpha, acc1);
  if (beta != 0.0f) {  // beta == 0 never reads C (it may hold NaN)
    const __m256 vb = _mm256_set1_ps(beta);
    r0 = _mm256_fmadd_ps(vb, _mm256_maskload_ps(c, m0), r0);
    r1 = _mm256_fmadd_ps(vb, _mm256_maskload_ps(c + 8, m1), r1);
  }
  _mm256_maskstore_ps(c, m0, r0);
  _mm256_maskstore_ps(c + 8, m1, r1);
}

// a is [M][kKC] (row stride kKC), b is [kc][16].
template <int M>
void kernel_f32(size_t kc, const float* a, const float* b, float* c, size_t ldc, size_t nr,
                float alpha, float beta) {
  __m256 acc0[M], acc1[M];
  for (int i = 0; i < M; ++i) acc0[i] = acc1[i] = _mm256_setzero_ps();
  for (size_t p = 0; p < kc; ++p) {
    const __m256 b0 = _mm256_load_ps(b + p * kNR), b1 = _mm256_load_ps(b + p * kNR + 8);
#pragma GCC unroll 6
    for (int i = 0; i < M; ++i) {
      const __m256 ai = _mm256_broadcast_ss(a + i * kKC + p);
      acc0[i] = _mm256_fmadd_ps(ai, b0, acc0[i]);
      acc1[i] = _mm256_fmadd_ps(ai, b1, acc1[i]);
    }
  }
  const __m256i m0 = lanes8(nr), m1 = lanes8(nr > 8 ? nr - 8 : 0);
  const __m256 va = _mm256_set1_ps(alpha);
  for (int i = 0; i < M; ++i) store_row(c + i * ldc, acc0[i], acc1[i], m0, m1, va, beta);
}

struct PackAF32 {
  const float* A;
  size_t lda;
  bool trans;
  const float* operator()(size_t i0, size_t mr, size_t p0, size_t kc, float* dst) const {
    if (!trans) {
      for (size_t i = 0; i < mr; ++i)
        std::memcpy(dst + i * kKC, A + (i0 + i) * lda + p0, kc * sizeof(float));
    } else {
      for (size_t p = 0; p < kc; ++p)
        for (size_t i = 0; i < mr; ++i) dst[i * kKC + p] = A[(p0 + p) * lda + i0 + i];
    }
    return dst;
  }
};

// op(B) columns j0.. → dst[panel][p][16]; B is [k][n] or, transposed, [n][k].
struct PackBF32 {
  const float* B;
  size_t ldb;
  bool trans;
  void operator()(size_t j0, size_t nc, size_t p0, size_t kc, float* dst) const {
    for (size_t jr = 0; jr < nc; jr += kNR, dst += kc * kNR) {
      const size_t nr = nc - jr < kNR ? nc - jr : kNR;
      if (!trans) {
        const __m256i m0 = lanes8(nr), m1 = lanes8(nr > 8 ? nr - 8 : 0);
        for (size_t p = 0; p < kc; ++p) {
          const float* src = B + (p0 + p) * ldb + j0 + jr;
          _mm256_store_ps(dst + p * kNR, _mm256_maskload_ps(src, m0));
          _mm256_store_ps(dst + p * kNR + 8, _mm256_maskload_ps(src + 8, m1));
        }
      } else {
        for (size_t j = 0; j < kNR; ++j) {
          if (j >= nr) {
            for (size_t p = 0; p < kc; ++p) dst[p * kNR + j] = 0.0f;
            continue;
          }
          const float* src = B + (j0 + jr + j) * ldb + p0;
          for (size_t p = 0; p < kc; ++p) dst[p * kNR + j] = src[p];
        }
      }
    }
  }
};

template <class PackB>
struct F32Gemm {
  static constexpr size_t MR = kMR, NR = kNR, KC = kKC, NC = kNC;
  using AElem = float;
  using BElem = float;
  PackAF32 pa;
  PackB pb;
  const float* pack_a(size_t i0, size_t mr, size_t p0, size_t kc, float* dst) const {
    return pa(i0, mr, p0, kc, dst);
  }
  void pack_b(size_t j0, size_t nc, size_t p0, size_t kc, float* dst) const {
    pb(j0, nc, p0, kc, dst);
  }
  void kernel(size_t mr, size_t kc, const float* a, const float* b, float* c, size_t ldc,
              size_t nr, float alpha, float beta) const {
    switch (mr) {
      case 1: return kernel_f32<1>(kc, a, b, c, ldc, nr, alpha, beta);
      case 2: return kernel_f32<2>(kc, a, b, c, ldc, nr, alpha, beta);
      case 3: return kernel_f32<3>(kc, a, b, c, ldc, nr, alpha, beta);
      case 4: return kernel_f32<4>(kc, a, b, c, ldc, nr, alpha, beta);
      case 5: return kernel_f32<5>(kc, a, b, c, ldc, nr, alpha, beta);
      default: return kernel_f32<6>(kc, a, b, c, ldc, nr, alpha, beta);
    }
  }
};

inline float hsum(__m256 v) {
  __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  s = _mm_add_ps(s, _mm_movehl_ps(s, s));
  s = _mm_add_ss(s, _mm_movehdup_ps(s));
  return _mm_cvtss_f32(s);
}


float dot_f32(const float* row, const float* x, size_t n) {
  __m256 a0 = _mm256_setzero_ps(), a1 = _mm256_setzero_ps();
  size_t c = 0;
  for (; c + 16 <= n; c += 16) {
    a0 = _mm256_fmadd_ps(_mm256_loadu_ps(row + c), _mm256_loadu_ps(x + c), a0);
    a1 = _mm256_fmadd_ps(_mm256_loadu_ps(row + c + 8), _mm256_loadu_ps(x + c + 8), a1);
  }
  float acc = hsum(_mm256_add_ps(a0, a1));
  for (; c < n; ++c) acc += row[c] * x[c];
  return acc;
}

// f32, plain bf16, vnni2 bf16 and vnni4 i8 are handled here; other i8 goes
// to the oracle. bf16 runs canonical_bf16.h (canonical_bf16_avx2.cpp), i8
// canonical_i8.h (canonical_i8_avx2.cpp), f32 its own dots.
bool is_fast(const WeightView& w) {
  if (w.dtype == DType::bf16 && w.layout == Layout::vnni2) return w.cols % 2 == 0;
  if (w.dtype == DType::i8) return canonical_i8::fits_avx2(w);
  return w.layout == Layout::plain && (w.dtype == DType::f32 || w.dtype == DType::bf16);
}

void matvec_avx2(const WeightView& w, const float* x, float* y) {
  if (!is_fast(w)) return kernels_scalar().matvec(w, x, y);
  if (w.dtype == DType::bf16) return canonical_bf16::matvec_avx2(w, x, y);
  if (w.dtype == DType::i8) return canonical_i8::matvec_avx2(w, x, y);
  const float* d = static_cast<const float*>(w.data);
  for (size_t r = 0; r < w.rows; ++r) y[r] = dot_f32(d + r * w.cols, x, w.cols);
}

void rows_dot_avx2(const WeightView& w, const uint32_t* ids, size_t n, const float* x,
                   float* out) {
  if (!is_fast(w)) return kernels_scalar().rows_dot(w, ids, n, x, out);
  if (w.dtype == DType::bf16) return canonical_bf16::rows_dot_avx2(w, ids, n, x, out);
  if (w.dtype == DType::i8) return canonical_i8::rows_dot_avx2(w, ids, n, x, out);
  const float* d = static_cast<const float*>(w.data);
  for (size_t i = 0; i < n; ++i) out[i] = dot_f32(d + size_t(ids[i]) * w.cols, x, w.cols);
}

// kernels.h's canonical 16 lanes as two ymm (lanes 0-7, 8-15) and its tree.
inline float reduce_canonical(__m256 lo, __m256 hi) {
  const __m256 s8 = _mm256_add_ps(lo, hi);
  const __m128 s4 = _mm_add_ps(_mm256_castps256_ps128(s8), _mm256_extractf128_ps(s8, 1));
  const __m128 s2 = _mm_add_ps(s4, _mm_movehl_ps(s4, s4));
  return _mm_cvtss_f32(_mm_add_ss(s2, _mm_movehdup_ps(s2)));
}

// Lanes past the end keep their sums (the scalar order skips them): the
// masked loads give 0·0, and the blend puts the old sum back.
inline __m256 fma_masked(const float* r, const float* x, size_t left, __m256 acc) {
  const __m256i m = lanes8(left);
  const __m256 f = _mm256_fmadd_ps(_mm256_maskload_ps(r, m), _mm256_maskload_ps(x, m), acc);
  return _mm256_blendv_ps(acc, f, _mm256_castsi256_ps(m));
}

void dot_rows_avx2(const float* rows, size_t ld, size_t n, const float* x, size_t d,
                   float* out) {
  const size_t full = d & ~size_t(15);
  for (size_t i = 0; i < n; ++i) {
    const float* r = rows + i * ld;
    __m256 lo = _mm256_setzero_ps(), hi = _mm256_setzero_ps();
    for (size_t c = 0; c < full; c += 16) {
      lo = _mm256_fmadd_ps(_mm256_loadu_ps(r + c), _mm256_loadu_ps(x + c), lo);
      hi = _mm256_fmadd_ps(_mm256_loadu_ps(r + c + 8), _mm256_loadu_ps(x + c + 8), hi);
    }
    if (full < d) {
      const size_t left = d - full;
      lo = fma_masked(r + full, x + full, left, lo);
      if (left > 8) hi = fma_masked(r + full + 8, x + full + 8, left - 8, hi);
    }
    out[i] += reduce_canonical(lo, hi);
  }
}

// canonical_exp.h's steps on 8 lanes (t <= 0; below kMin or NaN: 0).
inline __m256 exp_canonical(__m256 t) {
  namespace ce = canonical_exp;
  const __m256 live = _mm256_cmp_ps(t, _mm256_set1_ps(ce::kMin), _CMP_GE_OQ);
  const __m256 k = _mm256_round_ps(_mm256_mul_ps(t, _mm256_set1_ps(ce::kLog2e)),
                                   _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m256 r = _mm256_fmadd_ps(k, _mm256_set1_ps(-ce::kLn2Hi), t);
  r = _mm256_fmadd_ps(k, _mm256_set1_ps(-ce::kLn2Lo), r);
  __m256 p = _mm256_set1_ps(ce::kC6);
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(ce::kC5));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(ce::kC4));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(ce::kC3));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(ce::kC2));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(ce::kC1));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(ce::kC0));
  const __m256i e = _mm256_slli_epi32(_mm256_cvtps_epi32(k), 23);
  return _mm256_and_ps(live, _mm256_castsi256_ps(_mm256_add_epi32(_mm256_castps_si256(p), e)));
}

// max(x[0..n)), exact in any order as softmax_avx512's: lanes past the end
// repeat x[0]; two chains, since vmaxps's latency, not its rate, bounds one
// (a scalar vmaxss chain was 60% of the whole softmax).
inline float row_max(const float* x, size_t n) {
  __m256 a = _mm256_set1_ps(x[0]), b = a;
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    a = _mm256_max_ps(_mm256_loadu_ps(x + i), a);
    b = _mm256_max_ps(_mm256_loadu_ps(x + i + 8), b);
  }
  for (; i < n; i += 8) {
    const __m256i m = lanes8(n - i);
    a = _mm256_max_ps(_mm256_blendv_ps(a, _mm256_maskload_ps(x + i, m), _mm256_castsi256_ps(m)), a);
  }
  a = _mm256_max_ps(a, b);
  __m128 h = _mm_max_ps(_mm256_castps256_ps128(a), _mm256_extractf128_ps(a, 1));
  h = _mm_max_ps(h, _mm_movehl_ps(h, h));
  return _mm_cvtss_f32(_mm_max_ss(h, _mm_movehdup_ps(h)));
}

float softmax_avx2(float* x, size_t n) {
  const float mx = row_max(x, n);
  const __m256 vm = _mm256_set1_ps(mx);
  __m256 sum[2] = {_mm256_setzero_ps(), _mm256_setzero_ps()};  // canonical lanes 0-7, 8-15
  for (size_t i = 0; i < n; i += 8) {
    const __m256i m = lanes8(n - i);
    const __m256 e = _mm256_and_ps(_mm256_castsi256_ps(m),
                                   exp_canonical(_mm256_sub_ps(_mm256_maskload_ps(x + i, m), vm)));
    _mm256_maskstore_ps(x + i, m, e);
    sum[(i / 8) & 1] = _mm256_add_ps(sum[(i / 8) & 1], e);  // + 0 past the end: exact
  }
  const float total = reduce_canonical(sum[0], sum[1]);
  const __m256 inv = _mm256_set1_ps(1.0f / total);
  for (size_t i = 0; i < n; i += 8) {
    const __m256i m = lanes8(n - i);
    _mm256_maskstore_ps(x + i, m, _mm256_mul_ps(_mm256_maskload_ps(x + i, m), inv));
  }
  return std::log(total) + mx;
}

void sgemm_avx2(bool trans_a, bool trans_b, size_t m, size_t n, size_t k, float alpha,
                const float* A, size_t lda, const float* B, size_t ldb, float beta, float* C,
                size_t ldc) {
  if (m == 0 || n == 0) return;
  if (k == 0) return gemm_scale_only(m, n, beta, C, ldc);
  const F32Gemm<PackBF32> g{{A, lda, trans_a}, {B, ldb, trans_b}};
  gemm_blocked(g, m, n, k, alpha, beta, C, ldc);
}

// Below this many rows, streaming the weights per row beats packing them.
constexpr size_t kMatmulMinRows = 4;

void matmul_avx2(const WeightView& w, const float* X, size_t ldx, size_t m, float* Y,
                 size_t ldy) {
  if (!is_fast(w)) return kernels_scalar().matmul(w, X, ldx, m, Y, ldy);
  if (w.dtype == DType::bf16) return canonical_bf16::matmul_avx2(w, X, ldx, m, Y, ldy);
  if (w.dtype == DType::i8) return canonical_i8::matmul_avx2(w, X, ldx, m, Y, ldy);
  if (m == 0 || w.rows == 0) return;
  if (m < kMatmulMinRows || w.cols == 0) {
    for (size_t i = 0; i < m; ++i) matvec_avx2(w, X + i * ldx, Y + i * ldy);
    return;
  }
  sgemm_avx2(false, true, m, w.rows, w.cols, 1.0f, X, ldx, static_cast<const float*>(w.data),
             w.cols, 0.0f, Y, ldy);
}

// One quantisation of X for int8 weights that the 7-bit (or the 8-bit)
// kernel takes alike; anything else, one matmul each.
void matmul_shared_avx2(const WeightView* ws, size_t n, const float* X, size_t ldx, size_t m,
                        float* const* Ys, const size_t* ldys) {
  bool shared = n > 0 && m > 1;
  for (size_t i = 0; shared && i < n; ++i)
    shared = ws[i].dtype == DType::i8 && is_fast(ws[i]) && ws[i].cols == ws[0].cols &&
             ws[i].bits == ws[0].bits && ws[i].rows > 0;
  if (shared) return canonical_i8::matmul_shared_avx2(ws, n, X, ldx, m, Ys, ldys);
  for (size_t i = 0; i < n; ++i) matmul_avx2(ws[i], X, ldx, m, Ys[i], ldys[i]);
}

const Kernels kAvx2 = {"avx2_fma",    matvec_avx2,  matmul_avx2, rows_dot_avx2,
                       dot_rows_avx2, softmax_avx2, sgemm_avx2,  attend_gemm_avx2,
                       matmul_shared_avx2};

}  // namespace

const Kernels* kernels_avx2() { return &kAvx2; }

}  // namespace amxqa
