// kernels_scalar.cpp — the portable reference table ("scalar"): the oracle
// every other ISA table is tested against, and the fallback for dtypes or
// layouts a faster table does not specialise. Written for clarity first; the
// inner loops are still contiguous where the layout allows, so the compiler
// can vectorise them for the baseline target.
#include <cmath>
#include <cstring>
#include <initializer_list>

#include "kernels/canonical_exp.h"

#include "kernels/bf16_inline.h"
#include "kernels/kernels.h"

namespace amxqa {
namespace {

// Logical element W[r][c] as f32, whatever the dtype and layout
// (layouts per kernels.h: vnni2 = [cols/2][rows][2], vnni4 = [cols/4][rows][4]).
inline float weight_at(const WeightView& w, size_t r, size_t c) {
  switch (w.dtype) {
    case DType::f32:
      return static_cast<const float*>(w.data)[r * w.cols + c];
    case DType::bf16: {
      const uint16_t* d = static_cast<const uint16_t*>(w.data);
      if (w.layout == Layout::vnni2) return bf16_bits_to_f32(d[((c / 2) * w.rows + r) * 2 + (c & 1)]);
      return bf16_bits_to_f32(d[r * w.cols + c]);
    }
    case DType::i8: {
      const int8_t* d = static_cast<const int8_t*>(w.data);
      const int8_t q = w.layout == Layout::vnni4 ? d[((c / 4) * w.rows + r) * 4 + (c & 3)]
                                                 : d[r * w.cols + c];
      return w.scales[r] * static_cast<float>(q);
    }
  }
  return 0.0f;
}

// One output row: W[r] · x. Plain layouts take the contiguous fast path; i8
// applies its row scale once, after the integer-valued sum.
float row_dot(const WeightView& w, size_t r, const float* x) {
  const size_t n = w.cols;
  float acc = 0.0f;
  if (w.layout == Layout::plain) {
    switch (w.dtype) {
      case DType::f32: {
        const float* row = static_cast<const float*>(w.data) + r * n;
        for (size_t c = 0; c < n; ++c) acc += row[c] * x[c];
        return acc;
      }
      case DType::bf16: {
        const uint16_t* row = static_cast<const uint16_t*>(w.data) + r * n;
        for (size_t c = 0; c < n; ++c) acc += bf16_bits_to_f32(row[c]) * x[c];
        return acc;
      }
      case DType::i8: {
        const int8_t* row = static_cast<const int8_t*>(w.data) + r * n;
        for (size_t c = 0; c < n; ++c) acc += static_cast<float>(row[c]) * x[c];
        return w.scales[r] * acc;
      }
    }
  }
  if (w.dtype == DType::i8) {  // vnni4: integer-valued sum first, row scale once
    const int8_t* d = static_cast<const int8_t*>(w.data);
    for (size_t c = 0; c < n; ++c)
      // NOLINTNEXTLINE(bugprone-integer-division): c / 4 is an index into the vnni4 layout.
      acc += static_cast<float>(d[((c / 4) * w.rows + r) * 4 + (c & 3)]) * x[c];
    return w.scales[r] * acc;
  }
  for (size_t c = 0; c < n; ++c) acc += weight_at(w, r, c) * x[c];
  return acc;
}

void matvec_scalar(const WeightView& w, const float* x, float* y) {
  for (size_t r = 0; r < w.rows; ++r) y[r] = row_dot(w, r, x);
}

void matmul_scalar(const WeightView& w, const float* X, size_t ldx, size_t m, float* Y,
                   size_t ldy) {
  for (size_t i = 0; i < m; ++i) matvec_scalar(w, X + i * ldx, Y + i * ldy);
}

void rows_dot_scalar(const WeightView& w, const uint32_t* ids, size_t n, const float* x,
                     float* out) {
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
                         dot_rows_scalar, softmax_scalar, sgemm_scalar};

}  // namespace

const Kernels& kernels_scalar() { return kScalar; }

}  // namespace amxqa
