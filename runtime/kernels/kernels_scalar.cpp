// kernels_scalar.cpp — the portable reference table ("scalar"): the oracle
// every other ISA table is tested against, and the fallback for dtypes or
// layouts a faster table does not specialise. Written for clarity first; the
// inner loops are still contiguous where the layout allows, so the compiler
// can vectorise them for the baseline target.
#include <cmath>
#include <cstring>
#include <initializer_list>

#include "kernels/canonical_bf16.h"
#include "kernels/canonical_exp.h"
#include "kernels/canonical_i8.h"

#include "kernels/bf16_inline.h"
#include "kernels/kernels.h"

namespace amxqa {
namespace {

// One output row of an f32 matrix: W[r] · x, in column order. (bf16 and i8
// weights take bf16_rows and i8_rows below.)
float row_dot(const WeightView& w, size_t r, const float* x) {
  const size_t n = w.cols;
  const float* row = static_cast<const float*>(w.data) + r * n;
  float acc = 0.0f;
  for (size_t c = 0; c < n; ++c) acc += row[c] * x[c];
  return acc;
}

// canonical_i8.h spelled out for n output rows of an i8 matrix (row(i) is the
// matrix row of output i): x is quantised once per call (per element when the
// row is too long for the stack buffer), then each output is an exact int32 sum.
template <class Row>
void i8_rows(const WeightView& w, size_t n, Row row, const float* x, float* out) {
  namespace ci = canonical_i8;
  constexpr size_t kMaxCols = 4096;
  const size_t k = w.cols;
  const float sx = ci::row_scale(x, k), inv = ci::inverse(sx);
  int8_t q[kMaxCols];
  const bool buffered = k <= kMaxCols;
  if (buffered)
    for (size_t c = 0; c < k; ++c) q[c] = ci::quantize(x[c], inv);
  for (size_t i = 0; i < n; ++i) {
    const size_t r = row(i);
    uint32_t acc = 0;  // wraps as the vector and tile sums do (only past ~130,000 columns)
    for (size_t c = 0; c < k; ++c)
      acc += uint32_t(int32_t(buffered ? q[c] : ci::quantize(x[c], inv)) * ci::weight(w, r, c));
    out[i] = ci::dequantize(int32_t(acc), sx, w.scales[r]);
  }
}

// The smallest and largest non-zero magnitude of one chunk of flushed values
// (lo = inf when all are zero). Products of two chunks are all exact and
// normal or zero, so that a multiply and add is the fused step, when
// lo·lo' >= 2^-126 and hi·hi' <= FLT_MAX.
struct MagRange {
  float lo = INFINITY, hi = 0.0f;
};
MagRange mag_range(const float* v) {
  MagRange r;
  for (size_t c = 0; c < canonical_bf16::kChunkCols; ++c) {
    const float m = std::fabs(v[c]), nz = m == 0.0f ? INFINITY : m;  // branch-free
    r.hi = m > r.hi ? m : r.hi;
    r.lo = nz < r.lo ? nz : r.lo;
  }
  return r;
}
bool products_exact(MagRange a, MagRange b) {
  return double(a.lo) * b.lo >= 0x1p-126 && double(a.hi) * b.hi <= 0x1.fffffep127;
}

// canonical_bf16.h spelled out for n output rows of a bf16 matrix (row(i) is
// the matrix row of output i), chunk by chunk so that each activation is
// rounded once per call; out[] holds y between chunks, as the C tile does.
// Four outputs advance together only so that their independent chains
// overlap in the pipeline; each output's operations are the definition's.
template <class Row>
void bf16_rows(const WeightView& w, size_t n, Row row, const float* x, float* out) {
  namespace cb = canonical_bf16;
  constexpr size_t kGroup = 4;
  const uint16_t* d = static_cast<const uint16_t*>(w.data);
  const bool vnni2 = w.layout == Layout::vnni2;
  for (size_t i = 0; i < n; ++i) out[i] = 0.0f;
  float xa[cb::kChunkCols], wa[kGroup][cb::kChunkCols];
  for (size_t c0 = 0; c0 < w.cols; c0 += cb::kChunkCols) {
    const size_t cn = w.cols - c0 < cb::kChunkCols ? w.cols - c0 : cb::kChunkCols;
    for (size_t c = 0; c < cb::kChunkCols; ++c) xa[c] = c < cn ? cb::activation(x[c0 + c]) : 0.0f;
    const MagRange xr = mag_range(xa);
    for (size_t i0 = 0; i0 < n; i0 += kGroup) {
      const size_t g = n - i0 < kGroup ? n - i0 : kGroup;
      bool exact = true;
      for (size_t j = 0; j < kGroup; ++j) {
        const size_t r = row(i0 + (j < g ? j : 0));  // spare lanes repeat a row, never stored
        if (!vnni2 && cn == cb::kChunkCols) {
          const uint16_t* src = d + r * w.cols + c0;
          for (size_t c = 0; c < cb::kChunkCols; ++c) wa[j][c] = cb::flush(bf16_bits_to_f32(src[c]));
        } else {
          for (size_t c = 0; c < cb::kChunkCols; ++c) {
            const size_t col = c0 + c;
            const uint16_t b = c >= cn ? 0 : vnni2 ? d[((col / 2) * w.rows + r) * 2 + (col & 1)]
                                                   : d[r * w.cols + col];
            wa[j][c] = cb::flush(bf16_bits_to_f32(b));
          }
        }
        exact = exact && products_exact(xr, mag_range(wa[j]));
      }
      float e[kGroup] = {}, o[kGroup] = {};
      if (exact) {  // the common case: fused_step without its range check
        for (size_t p = 0; p < cb::kChunkPairs; ++p)
          for (size_t j = 0; j < kGroup; ++j) {
            e[j] = cb::flush(xa[2 * p] * wa[j][2 * p] + e[j]);
            o[j] = cb::flush(xa[2 * p + 1] * wa[j][2 * p + 1] + o[j]);
          }
      } else {
        for (size_t p = 0; p < cb::kChunkPairs; ++p)
          for (size_t j = 0; j < kGroup; ++j) {
            e[j] = cb::fused_step(xa[2 * p], wa[j][2 * p], e[j]);
            o[j] = cb::fused_step(xa[2 * p + 1], wa[j][2 * p + 1], o[j]);
          }
      }
      for (size_t j = 0; j < g; ++j) out[i0 + j] = cb::flush(out[i0 + j] + cb::flush(e[j] + o[j]));
    }
  }
}

void matvec_scalar(const WeightView& w, const float* x, float* y) {
  if (w.dtype == DType::bf16) return bf16_rows(w, w.rows, [](size_t i) { return i; }, x, y);
  if (w.dtype == DType::i8) return i8_rows(w, w.rows, [](size_t i) { return i; }, x, y);
  for (size_t r = 0; r < w.rows; ++r) y[r] = row_dot(w, r, x);
}

void matmul_scalar(const WeightView& w, const float* X, size_t ldx, size_t m, float* Y,
                   size_t ldy) {
  for (size_t i = 0; i < m; ++i) matvec_scalar(w, X + i * ldx, Y + i * ldy);
}

void rows_dot_scalar(const WeightView& w, const uint32_t* ids, size_t n, const float* x,
                     float* out) {
  if (w.dtype == DType::bf16) return bf16_rows(w, n, [ids](size_t i) { return ids[i]; }, x, out);
  if (w.dtype == DType::i8) return i8_rows(w, n, [ids](size_t i) { return ids[i]; }, x, out);
  for (size_t i = 0; i < n; ++i) out[i] = row_dot(w, ids[i], x);
}

void sgemm_scalar(bool trans_a, bool trans_b, size_t m, size_t n, size_t k, float alpha,
                  const float* A, size_t lda, const float* B, size_t ldb, float beta, float* C,
                  size_t ldc) {
  for (size_t i = 0; i < m; ++i) {
    float* c = C + i * ldc;
    // beta == 0 overwrites: C may hold garbage, even NaN.
    if (beta == 0.0f) {
      for (size_t j = 0; j < n; ++j) c[j] = 0.0f;
    } else if (beta != 1.0f) {
      for (size_t j = 0; j < n; ++j) c[j] *= beta;
    }
    if (!trans_b) {
      // Row i of C accumulates rows of B: contiguous inner loop.
      for (size_t p = 0; p < k; ++p) {
        const float a = alpha * (trans_a ? A[p * lda + i] : A[i * lda + p]);
        const float* b = B + p * ldb;
        for (size_t j = 0; j < n; ++j) c[j] += a * b[j];
      }
    } else {
      // op(B)[p][j] = B[j][p]: each C element is a dot of two contiguous rows.
      for (size_t j = 0; j < n; ++j) {
        const float* b = B + j * ldb;
        float acc = 0.0f;
        if (trans_a) {
          for (size_t p = 0; p < k; ++p) acc += A[p * lda + i] * b[p];
        } else {
          const float* a = A + i * lda;
          for (size_t p = 0; p < k; ++p) acc += a[p] * b[p];
        }
        c[j] += alpha * acc;
      }
    }
  }
}

// kernels.h's attend_gemm order spelled out: one std::fma per term, in order.
void attend_gemm_scalar(bool trans_b, size_t m, size_t n, size_t k, float alpha, const float* A,
                        size_t lda, const float* B, size_t ldb, float* C, size_t ldc,
                        size_t causal) {
  const size_t step = trans_b ? 1 : ldb, col = trans_b ? ldb : 1;  // op(B)[i][j] = B[j·col + i·step]
  for (size_t r = 0; r < m; ++r) {
    // The causal mask limits the scores' columns, or the output's depth.
    const size_t cols = trans_b ? causal_limit(causal, r, n) : n;
    const size_t depth = trans_b ? k : causal_limit(causal, r, k);
    for (size_t j = 0; j < cols; ++j) {
      const float* a = A + r * lda;
      const float* b = B + j * col;
      float acc = 0.0f;
      for (size_t i = 0; i < depth; ++i) acc = std::fma(a[i], b[i * step], acc);
      C[r * ldc + j] = alpha * acc;
    }
  }
}

// kernels.h's canonical tree over 16 lane sums: l + 8, + 4, + 2, + 1.
float reduce_lanes(float* a) {
  for (size_t half = kCanonicalLanes / 2; half >= 1; half /= 2)
    for (size_t l = 0; l < half; ++l) a[l] += a[l + half];
  return a[0];
}

// The canonical order spelled out: lane l fuses c ≡ l (mod 16) in ascending c.
// std::fma is the single-rounding operation the SIMD tables' FMA performs.
void dot_rows_scalar(const float* rows, size_t ld, size_t n, const float* x, size_t d,
                     float* out) {
  for (size_t i = 0; i < n; ++i) {
    const float* r = rows + i * ld;
    float a[kCanonicalLanes] = {};
    for (size_t c = 0; c < d; ++c) a[c % kCanonicalLanes] = std::fma(r[c], x[c], a[c % kCanonicalLanes]);
    out[i] += reduce_lanes(a);
  }
}

// canonical_exp.h's steps, one value at a time.
float exp_canonical(float t) {
  namespace ce = canonical_exp;
  if (!(t >= ce::kMin)) return 0.0f;
  const float k = std::nearbyint(t * ce::kLog2e);
  float r = std::fma(k, -ce::kLn2Hi, t);
  r = std::fma(k, -ce::kLn2Lo, r);
  float p = ce::kC6;
  for (float c : {ce::kC5, ce::kC4, ce::kC3, ce::kC2, ce::kC1, ce::kC0}) p = std::fma(p, r, c);
  uint32_t bits;
  std::memcpy(&bits, &p, sizeof bits);
  bits += static_cast<uint32_t>(static_cast<int32_t>(k)) << 23;
  std::memcpy(&p, &bits, sizeof p);
  return p;
}

float softmax_scalar(float* x, size_t n) {
  float mx = x[0];
  for (size_t i = 1; i < n; ++i) mx = x[i] > mx ? x[i] : mx;
  float a[kCanonicalLanes] = {};
  for (size_t i = 0; i < n; ++i) {
    x[i] = exp_canonical(x[i] - mx);
    a[i % kCanonicalLanes] += x[i];
  }
  const float sum = reduce_lanes(a);
  const float inv = 1.0f / sum;
  for (size_t i = 0; i < n; ++i) x[i] *= inv;
  return std::log(sum) + mx;  // sum >= 1: the maximum adds exp(0)
}

const Kernels kScalar = {"scalar",        matvec_scalar,  matmul_scalar, rows_dot_scalar,
                         dot_rows_scalar, softmax_scalar, sgemm_scalar,  attend_gemm_scalar};

}  // namespace

const Kernels& kernels_scalar() { return kScalar; }

}  // namespace amxqa
