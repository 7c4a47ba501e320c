// canonical_i8_avx2.cpp — canonical_i8.h on AVX2, for int8 weights in the
// vnni4 layout: matvec, matmul and rows_dot of the AVX2 table.
//
// AVX2 has no signed x signed byte dot that cannot saturate (vpmaddubsw
// saturates to int16), so both operands are int16 and vpmaddwd sums pairs of
// products into int32, exactly. A 32-byte load of vnni4 weights is 8 outputs
// x 4 columns; each 16-byte half widens to 16 int16 (4 outputs x 4 columns)
// and meets the row's 4 activations, quantised straight to int16 and
// broadcast as one qword. Each output collects two int32 lanes (columns 0-1
// and 2-3 of every group), added by hadd at the end: integer sums, so the
// bits are canonical_i8.h's whatever the order.
//
// Rows longer than kMaxCols, plain-layout weights and ids past int32 go to
// the scalar table, which computes the same bits.
#include "kernels/canonical_i8_x86.h"

#include <immintrin.h>

#include <cstring>

#include "kernels/canonical_i8.h"
#include "kernels/canonical_i8_blocks.h"

namespace amxqa::canonical_i8 {
namespace {

constexpr size_t kMR = kBlockRows;  // activation rows per micro-kernel
constexpr size_t kMaxCols = 2048;  // longest row quantised on the stack

inline __m256i lanes8(size_t n) {
  const __m256i idx = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(n > 8 ? 8 : n)), idx);
}

// One activation row, quantised (steps 1 and 2) to int16: dst[0..k) = q,
// zeros up to a multiple of 4; returns sx.
float quantize_row(const float* x, size_t k, int16_t* dst) {
  const __m256 abs_mask = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff));
  __m256 amax = _mm256_setzero_ps();
  for (size_t c = 0; c < k; c += 8) {
    const __m256 a = _mm256_and_ps(_mm256_maskload_ps(x + c, lanes8(k - c)), abs_mask);
    amax = _mm256_max_ps(a, amax);  // a NaN in a returns amax: NaN never wins
  }
  alignas(32) float lanes[8];
  _mm256_store_ps(lanes, amax);
  float m = 0.0f;
  for (float v : lanes) m = v > m ? v : m;
  const float sx = m / 127.0f;
  const __m256 inv = _mm256_set1_ps(inverse(sx));
  const __m256 lo = _mm256_set1_ps(-127.0f), hi = _mm256_set1_ps(127.0f);
  for (size_t c = 0; c < k; c += 8) {
    __m256 q = _mm256_mul_ps(_mm256_maskload_ps(x + c, lanes8(k - c)), inv);
    q = _mm256_andnot_ps(_mm256_cmp_ps(q, q, _CMP_UNORD_Q), q);  // NaN -> 0
    const __m256i v = _mm256_cvtps_epi32(_mm256_min_ps(_mm256_max_ps(q, lo), hi));  // RNE
    const __m256i p = _mm256_permute4x64_epi64(_mm256_packs_epi32(v, v), 0x08);
    alignas(16) int16_t t[8];
    _mm_store_si128(reinterpret_cast<__m128i*>(t), _mm256_castsi256_si128(p));
    std::memcpy(dst + c, t, (k - c < 8 ? k - c : 8) * sizeof(int16_t));
  }
  for (size_t c = k; c % 4; ++c) dst[c] = 0;
  return sx;
}

struct QRows {
  alignas(32) int16_t q[kMR][kMaxCols];
  float sx[kMR];
  void quantize(const float* X, size_t ldx, size_t m, size_t k) {
    for (size_t i = 0; i < m; ++i) sx[i] = quantize_row(X + i * ldx, k, q[i]);
  }
  __m256i quad(size_t i, size_t g) const {
    int64_t v;
    std::memcpy(&v, q[i] + 4 * g, 8);
    return _mm256_set1_epi64x(v);
  }
};

// 8 outputs' weights for one group (32 bytes) widened to int16: outputs 0-3
// and 4-7.
struct Wide8 {
  __m256i lo, hi;
};
inline Wide8 widen8(__m256i b) {
  return {_mm256_cvtepi8_epi16(_mm256_castsi256_si128(b)),
          _mm256_cvtepi8_epi16(_mm256_extracti128_si256(b, 1))};
}

// acc += the 8 outputs' products with x: lo holds outputs 0-3, hi 4-7, two
// int32 lanes each.
inline void madd8(const Wide8& b, __m256i x, __m256i* lo, __m256i* hi) {
  *lo = _mm256_add_epi32(*lo, _mm256_madd_epi16(b.lo, x));
  *hi = _mm256_add_epi32(*hi, _mm256_madd_epi16(b.hi, x));
}

// Step 4 for up to 8 outputs of one row; sw are their weight scales.
inline void store(float* y, size_t n, __m256i lo, __m256i hi, float sx, const float* sw) {
  const __m256i acc = _mm256_permute4x64_epi64(_mm256_hadd_epi32(lo, hi), 0xd8);
  const __m256i m = lanes8(n);
  const __m256 v = _mm256_mul_ps(_mm256_maskload_ps(sw, m),
                                 _mm256_mul_ps(_mm256_set1_ps(sx), _mm256_cvtepi32_ps(acc)));
  if (n >= 8) _mm256_storeu_ps(y, v);
  else _mm256_maskstore_ps(y, m, v);
}

// Y[i][j0 .. j0 + 8 NB) for rows i < M of `a`, nj valid outputs from j0.
template <int M, int NB>
void kernel(const QRows& a, const WeightView& w, size_t j0, size_t nj, float* Y, size_t ldy) {
  const uint8_t* d = static_cast<const uint8_t*>(w.data);
  const size_t n = w.rows, groups = w.cols / 4;
  __m256i mask[NB];
#pragma GCC unroll 8
  for (int z = 0; z < NB; ++z) mask[z] = lanes8(nj > size_t(8 * z) ? nj - 8 * z : 0);
  // Fully unrolled loops over the register block, so that the accumulators
  // stay in registers.
  __m256i lo[M][NB], hi[M][NB];
#pragma GCC unroll 8
  for (int i = 0; i < M; ++i)
#pragma GCC unroll 8
    for (int z = 0; z < NB; ++z) lo[i][z] = hi[i][z] = _mm256_setzero_si256();
  for (size_t g = 0; g < groups; ++g) {
    const uint8_t* src = d + (g * n + j0) * 4;
    Wide8 b[NB];
#pragma GCC unroll 8
    for (int z = 0; z < NB; ++z)
      b[z] = widen8(_mm256_maskload_epi32(reinterpret_cast<const int*>(src + 32 * z), mask[z]));
#pragma GCC unroll 8
    for (int i = 0; i < M; ++i) {
      const __m256i x = a.quad(i, g);
#pragma GCC unroll 8
      for (int z = 0; z < NB; ++z) madd8(b[z], x, &lo[i][z], &hi[i][z]);
    }
  }
#pragma GCC unroll 8
  for (int i = 0; i < M; ++i)
#pragma GCC unroll 8
    for (int z = 0; z < NB; ++z)
      if (nj > size_t(8 * z))
        store(Y + i * ldy + j0 + 8 * z, nj - 8 * z, lo[i][z], hi[i][z], a.sx[i],
            w.scales + j0 + 8 * z);
}


// The micro-kernels as canonical_i8_blocks.h calls them: prefill panels of
// 8 outputs, decode panels of 32 (more independent sums per row).
template <int M>
struct Block {
  static void run(const QRows& a, const WeightView& w, size_t j0, size_t nj, float* Y, size_t ldy) {
    kernel<M, 1>(a, w, j0, nj, Y, ldy);
  }
};
constexpr size_t kPanel = 8;
template <int M>
struct DecodeBlock {
  static void run(const QRows& a, const WeightView& w, size_t j0, size_t nj, float* Y, size_t ldy) {
    kernel<M, 4>(a, w, j0, nj, Y, ldy);
  }
};

}  // namespace

bool fits_avx2(const WeightView& w) { return fits(w, kMaxCols); }

void matmul_avx2(const WeightView& w, const float* X, size_t ldx, size_t m, float* Y,
                 size_t ldy) {
  QRows a;
  matmul_blocks<Block, kPanel>(a, w, X, ldx, m, Y, ldy);
}

// Decode: one row, 32 outputs per pass (8 independent sums in flight).
void matvec_avx2(const WeightView& w, const float* x, float* y) {
  QRows a;
  a.quantize(x, 0, 1, w.cols);
  sweep<DecodeBlock, 1, 32>(a, w, y, 0);
}

// The selected rows, 8 at a time: each group's dwords are gathered.
void rows_dot_avx2(const WeightView& w, const uint32_t* ids, size_t n, const float* x,
                   float* out) {
  QRows a;
  a.quantize(x, 0, 1, w.cols);
  const int* d = static_cast<const int*>(w.data);
  const size_t groups = w.cols / 4;
  for (size_t i0 = 0; i0 < n; i0 += 8) {
    const size_t g8 = n - i0 < 8 ? n - i0 : 8;
    alignas(32) int idx[8];
    alignas(32) float sw[8];
    for (size_t r = 0; r < 8; ++r) {
      idx[r] = static_cast<int>(ids[i0 + (r < g8 ? r : 0)]);  // spare lanes repeat a row
      sw[r] = w.scales[idx[r]];
    }
    const __m256i vi = _mm256_load_si256(reinterpret_cast<const __m256i*>(idx));
    __m256i lo = _mm256_setzero_si256(), hi = lo;
    for (size_t g = 0; g < groups; ++g)
      madd8(widen8(_mm256_i32gather_epi32(d + g * w.rows, vi, 4)), a.quad(0, g), &lo, &hi);
    store(out + i0, g8, lo, hi, a.sx[0], sw);
  }
}

}  // namespace amxqa::canonical_i8
