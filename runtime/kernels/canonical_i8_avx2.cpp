// canonical_i8_avx2.cpp — canonical_i8.h on AVX2, for int8 weights in the
// vnni4 layout: matvec, matmul and rows_dot of the AVX2 table.
//
// A 32-byte load of vnni4 weights is 8 outputs x 4 columns; each activation
// row's 4 columns of a group are broadcast and meet all 8. Two products,
// both exact, so the bits are canonical_i8.h's whatever the order:
// - 7-bit weights (WeightView::bits == 7: every w in [-64, 63]): vpmaddubsw
//   multiplies unsigned by signed bytes and sums pairs into int16, saturating.
//   The weights are made unsigned (w + 64 in [0, 127], one vpaddb per load)
//   and meet the signed activations q in [-127, 127]: a pair sum is at most
//   2 · 127 · 127 = 32,258 < 32,767, so it never saturates. vpmaddwd by ones
//   sums the two pairs of each output into int32, and 64 · Σq of the row,
//   counted while quantising, is subtracted at the end:
//   Σ (w + 64) q − 64 Σ q = Σ w q. One multiply-add pair per 32 products,
//   no widening. Where the activations are small enough (most of a model's
//   are), the vpmaddubsw of 2 or 4 groups are first summed in int16 (vpaddw)
//   and widened once: exact by a bound checked per row block and chunk of 16
//   columns (mark_spans), so the bits are the same either way. Groups of 4
//   columns that are zero in every row of a block (most of FFN down's input,
//   after ReLU²) are dropped before the products (QRows::compact_groups).
// - 8-bit weights (today's files, w in [-128, 127]): a pair of 8-bit
//   products can exceed int16, so both operands are widened to int16 and
//   vpmaddwd sums pairs into int32 (each 16-byte half of a load widens to 4
//   outputs x 4 columns; each output collects two int32 lanes, added by hadd
//   at the end).
//
// Rows longer than kMaxCols, plain-layout weights and ids past int32 go to
// the scalar table, which computes the same bits.
#include "kernels/canonical_i8_x86.h"

#include <immintrin.h>

#include <cstring>
#include <type_traits>

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

// 8 int32 q (each in [-127, 127]) as the first 8 elements of a vector of T.
inline __m128i narrow8(__m256i v, int16_t*) {
  return _mm256_castsi256_si128(_mm256_permute4x64_epi64(_mm256_packs_epi32(v, v), 0x08));
}
inline __m128i narrow8(__m256i v, int8_t*) {
  const __m256i b = _mm256_packs_epi16(_mm256_packs_epi32(v, v), _mm256_setzero_si256());
  return _mm256_castsi256_si128(_mm256_permutevar8x32_epi32(b, _mm256_setr_epi32(0, 4, 1, 1, 1, 1, 1, 1)));
}

// 32 int32 q (v[0..3], 8 each) stored in order as T: the packs work within
// 128-bit lanes, the permutes put the values back in order. (Saturating
// packs lose nothing: every q is in [-127, 127].)
inline void store32(const __m256i* v, int16_t* dst) {
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst),
                      _mm256_permute4x64_epi64(_mm256_packs_epi32(v[0], v[1]), 0xd8));
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + 16),
                      _mm256_permute4x64_epi64(_mm256_packs_epi32(v[2], v[3]), 0xd8));
}
inline void store32(const __m256i* v, int8_t* dst) {
  const __m256i b = _mm256_packs_epi16(_mm256_packs_epi32(v[0], v[1]), _mm256_packs_epi32(v[2], v[3]));
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst),
                      _mm256_permutevar8x32_epi32(b, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7)));
}

// Step 2 for 8 values: NaN -> 0, clamped, rounded half to even (vcvtps2dq
// under the default MXCSR).
inline __m256i quantize8(__m256 x, __m256 inv) {
  const __m256 lo = _mm256_set1_ps(-127.0f), hi = _mm256_set1_ps(127.0f);
  __m256 q = _mm256_mul_ps(x, inv);
  q = _mm256_andnot_ps(_mm256_cmp_ps(q, q, _CMP_UNORD_Q), q);
  return _mm256_cvtps_epi32(_mm256_min_ps(_mm256_max_ps(q, lo), hi));
}

// Step 1's |x| maximum of one row, in 8 lanes (not NaN, >= +0): blocks of
// 32 values on four independent max chains, then the rest 8 at a time,
// masked. (max returns its second operand when the first is a NaN: NaN never
// wins; max is exact in any order.)
inline __m256 abs_max8(const float* x, size_t k) {
  const __m256 abs_mask = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff));
  const size_t full = k / 32 * 32;
  __m256 m4[4] = {_mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps()};
  size_t c = 0;
  for (; c < full; c += 32)
    for (int j = 0; j < 4; ++j)
      m4[j] = _mm256_max_ps(_mm256_and_ps(_mm256_loadu_ps(x + c + 8 * j), abs_mask), m4[j]);
  for (; c < k; c += 8)
    m4[0] = _mm256_max_ps(_mm256_and_ps(_mm256_maskload_ps(x + c, lanes8(k - c)), abs_mask), m4[0]);
  return _mm256_max_ps(_mm256_max_ps(m4[0], m4[1]), _mm256_max_ps(m4[2], m4[3]));
}

// The largest of the 8 lanes, in every lane (a shuffle tree: exact).
inline __m256 lanes_max(__m256 v) {
  v = _mm256_max_ps(v, _mm256_permute2f128_ps(v, v, 0x01));
  v = _mm256_max_ps(v, _mm256_shuffle_ps(v, v, 0x4e));
  return _mm256_max_ps(v, _mm256_shuffle_ps(v, v, 0xb1));
}

// Step 2 for one row, with inv in every lane: dst[0..k) = q, zeros up to a
// multiple of 4; *qsum = Σ q. Blocks of 32 values (one 32-byte store of int8
// or two of int16), then the rest 8 at a time, masked.
template <class T>
void quantize_with(const float* x, size_t k, __m256 inv, T* dst, int32_t* qsum) {
  const size_t full = k / 32 * 32;
  __m256i sum = _mm256_setzero_si256();
  size_t c = 0;
  for (; c < full; c += 32) {
    __m256i v[4];
    for (int j = 0; j < 4; ++j) v[j] = quantize8(_mm256_loadu_ps(x + c + 8 * j), inv);
    sum = _mm256_add_epi32(sum, _mm256_add_epi32(_mm256_add_epi32(v[0], v[1]), _mm256_add_epi32(v[2], v[3])));
    store32(v, dst + c);
  }
  for (; c < k; c += 8) {
    const __m256i v = quantize8(_mm256_maskload_ps(x + c, lanes8(k - c)), inv);
    sum = _mm256_add_epi32(sum, v);  // lanes past k loaded 0: q = 0
    alignas(16) T t[16];
    _mm_store_si128(reinterpret_cast<__m128i*>(t), narrow8(v, t));
    std::memcpy(dst + c, t, (k - c < 8 ? k - c : 8) * sizeof(T));
  }
  for (size_t z = k; z % 4; ++z) dst[z] = 0;
  alignas(32) int32_t s[8];
  _mm256_store_si256(reinterpret_cast<__m256i*>(s), sum);
  *qsum = s[0] + s[1] + s[2] + s[3] + s[4] + s[5] + s[6] + s[7];
}

// Steps 1 and 2 for m <= 8 rows of X (row stride ldx) into dst[i]: sx[i],
// qsum[i] = Σ q of row i. Every row's maximum first, so that their chains
// overlap and one vector division gives every row's sx (amax / 127) and one
// its inverse (1 / sx, 0 where sx is 0): IEEE division, the bits of the
// scalar steps. (One row at a time, the maximum's chain, its reduction and
// the two divisions were a serial stretch per row.)
template <class T, size_t Cols>
void quantize_rows(const float* X, size_t ldx, size_t m, size_t k, T (*dst)[Cols], float* sx,
                   int32_t* qsum) {
  alignas(32) float amax[8] = {};
  for (size_t i = 0; i < m; ++i) amax[i] = _mm256_cvtss_f32(lanes_max(abs_max8(X + i * ldx, k)));
  const __m256 s = _mm256_div_ps(_mm256_load_ps(amax), _mm256_set1_ps(127.0f));
  const __m256 inv = _mm256_and_ps(_mm256_cmp_ps(s, _mm256_setzero_ps(), _CMP_GT_OQ),
                                   _mm256_div_ps(_mm256_set1_ps(1.0f), s));
  alignas(32) float invs[8];
  _mm256_store_ps(invs, inv);
  _mm256_store_ps(amax, s);
  for (size_t i = 0; i < m; ++i) {
    sx[i] = amax[i];
    quantize_with(X + i * ldx, k, _mm256_set1_ps(invs[i]), dst[i], &qsum[i]);
  }
}

// 7-bit weights: the vpmaddubsw products of a span of 1, 2 or 4
// consecutive groups summed in int16 before one vpmaddwd widens them. Lane
// p (0, 1) of an output collects columns 4g + 2p and 4g + 2p + 1 of each
// group, 2 · span products (w + 64) q with w + 64 in [0, 127], so its sum
// lies in [−127 N, 127 P], P the sum of those columns' positive q, N of −q
// for the negative ones. With P, N <= 258 it is within ±32,766: exact in
// int16 (vpaddw wraps, so only the final sum needs the bound; no single
// vpmaddubsw saturates, see the top of the file). A span of 1 needs no
// bound. Checked per row for each chunk of kChunk groups (16 columns).
constexpr size_t kChunk = 4;
constexpr int16_t kExact16 = 258;  // 127 · 258 = 32,766

// bad[c / 32] |= where the 32 columns from c of q[0..k) break a span: bits
// 0-3 and 8-11 (chunk c / 16, then 16-19 and 24-27 for the next) where 2
// groups would exceed the bound, bits 4-7 (20-23) where 4 would; q holds
// zeros up to a multiple of 32. No branch: a block's rows are merged by OR
// and turned into spans once (spans(), below), which on normal activations
// saved about a third of the quantisation's time (the per-chunk branches
// mispredicted).
inline void mark_spans(const int8_t* q, size_t k, uint32_t* bad) {
  const __m256i ones = _mm256_set1_epi8(1), zero = _mm256_setzero_si256(),
                lim = _mm256_set1_epi16(kExact16);
  for (size_t c = 0; c < k; c += 32) {  // 8 groups: 2 chunks
    const __m256i v = _mm256_load_si256(reinterpret_cast<const __m256i*>(q + c));
    const __m256i pos = _mm256_max_epi8(v, zero), neg = _mm256_sub_epi8(pos, v);  // q >= -127
    // Sums of each group's 2 columns per lane (int16 lanes 2g, 2g + 1), then
    // of 2 groups (in the first 4 bytes of each 8), then of 4 (of each 16).
    __m256i p = _mm256_maddubs_epi16(pos, ones), n = _mm256_maddubs_epi16(neg, ones);
    p = _mm256_add_epi16(p, _mm256_srli_epi64(p, 32));
    n = _mm256_add_epi16(n, _mm256_srli_epi64(n, 32));
    const uint32_t bad2 = static_cast<uint32_t>(
        _mm256_movemask_epi8(_mm256_cmpgt_epi16(_mm256_max_epi16(p, n), lim)));
    p = _mm256_add_epi16(p, _mm256_srli_si256(p, 8));
    n = _mm256_add_epi16(n, _mm256_srli_si256(n, 8));
    const uint32_t bad4 = static_cast<uint32_t>(
        _mm256_movemask_epi8(_mm256_cmpgt_epi16(_mm256_max_epi16(p, n), lim)));
    bad[c / 32] |= (bad2 & 0x0f0f0f0fu) | (bad4 & 0x000f000fu) << 4;
  }
}

// span[c] for the chunks of `bad` (mark_spans): the log2 of the widest
// exact span (2: 4 groups, 1: 2, 0: 1).
inline void spans(const uint32_t* bad, size_t chunks, uint8_t* span) {
  for (size_t c = 0; c < chunks; ++c) {
    const uint32_t b = bad[c / 2] >> (16 * (c & 1));
    span[c] = static_cast<uint8_t>(((b & 0x0f0f) == 0) * (1 + ((b & 0xf0) == 0)));
  }
}

// A block of activation rows, quantised to T; corr is what each row's sums
// carry on top of Σ w q (Bias · Σ q). For int8 rows (7-bit weights),
// span[c]: the log2 of the groups of chunk c that every row can sum in int16;
// and where `compact` and some groups of 4 columns are zero in every row
// (after ReLU² most are: 58–86% of the FFN-down input's in the 7-bit model's
// prefill), q holds only the others, in order, group t being the weights'
// group gidx[t] (ng of them; a zero group adds nothing to any sum, so the
// bits are the same). rows_dot reads q by the weights' groups: no compacting.
template <class T, int Bias>
struct QRows {
  alignas(32) T q[kMR][kMaxCols];
  float sx[kMR];
  int32_t corr[kMR];
  uint8_t span[kMaxCols / (4 * kChunk)];
  uint32_t bad[kMaxCols / 32];
  uint16_t gidx[kMaxCols / 4];
  size_t ng = 0;        // groups in q
  bool sparse = false;  // q is compacted (gidx holds the groups)
  void quantize(const float* X, size_t ldx, size_t m, size_t k, bool compact = true) {
    const size_t padded = (k + 31) / 32 * 32;
    if constexpr (sizeof(T) == 1) std::memset(bad, 0, padded / 32 * sizeof(uint32_t));
    static_assert(kMR <= 8, "quantize_rows takes at most 8 rows");
    int32_t qsum[kMR];
    quantize_rows(X, ldx, m, k, q, sx, qsum);
    for (size_t i = 0; i < m; ++i) {
      corr[i] = static_cast<int32_t>(static_cast<uint32_t>(qsum[i]) * Bias);
      if constexpr (sizeof(T) == 1) {
        const size_t k4 = (k + 3) / 4 * 4;  // quantize_with zeroed up to here
        std::memset(q[i] + k4, 0, padded - k4);
        mark_spans(q[i], padded, bad);
      }
    }
    ng = k / 4;
    sparse = false;
    if constexpr (sizeof(T) == 1) {
      if (compact) compact_groups(m, k);
      if (!sparse) spans(bad, padded / (4 * kChunk), span);
    }
  }

  // Drops the groups that are zero in all m rows where they are at least an
  // eighth (the sparse kernel's gidx loads cost about that much a group),
  // and marks the spans of what is left (k is a multiple of 4: fits()).
  void compact_groups(size_t m, size_t k) {
    const size_t groups = k / 4;
    size_t n = 0;
    for (size_t c = 0; c < groups * 4; c += 32) {
      __m256i any = _mm256_setzero_si256();
      for (size_t i = 0; i < m; ++i)
        any = _mm256_or_si256(any, _mm256_load_si256(reinterpret_cast<const __m256i*>(q[i] + c)));
      // Bit g: group c / 4 + g has a non-zero byte (the padding past k is zero).
      uint32_t live = ~static_cast<uint32_t>(_mm256_movemask_ps(
                          _mm256_castsi256_ps(_mm256_cmpeq_epi32(any, _mm256_setzero_si256())))) & 0xffu;
      for (; live; live &= live - 1)
        gidx[n++] = static_cast<uint16_t>(c / 4 + static_cast<size_t>(__builtin_ctz(live)));
    }
    if (n > groups - groups / 8) return;
    for (size_t i = 0; i < m; ++i)  // in place: gidx[t] >= t (through v: they may be equal)
      for (size_t t = 0; t < n; ++t) {
        uint32_t v;
        std::memcpy(&v, q[i] + 4 * size_t(gidx[t]), 4);
        std::memcpy(q[i] + 4 * t, &v, 4);
      }
    const size_t cols = 4 * n, padded = (cols + 31) / 32 * 32;
    std::memset(bad, 0, padded / 32 * sizeof(uint32_t));
    for (size_t i = 0; i < m; ++i) {
      std::memset(q[i] + cols, 0, padded - cols);
      mark_spans(q[i], padded, bad);
    }
    spans(bad, padded / (4 * kChunk), span);
    ng = n;
    sparse = true;
  }
};

// 8-bit weights: int16 operands, vpmaddwd. Acc: outputs 0-3 (lo) and 4-7
// (hi), two int32 lanes each.
struct Wide {
  using Rows = QRows<int16_t, 0>;
  struct B {
    __m256i lo, hi;
  };
  struct Acc {
    __m256i lo = _mm256_setzero_si256(), hi = _mm256_setzero_si256();
  };
  static B weights(__m256i b) {
    return {_mm256_cvtepi8_epi16(_mm256_castsi256_si128(b)),
            _mm256_cvtepi8_epi16(_mm256_extracti128_si256(b, 1))};
  }
  static __m256i x(const Rows& a, size_t i, size_t g) {
    int64_t v;
    std::memcpy(&v, a.q[i] + 4 * g, 8);
    return _mm256_set1_epi64x(v);
  }
  static void step(Acc& acc, const B& b, __m256i x) {
    acc.lo = _mm256_add_epi32(acc.lo, _mm256_madd_epi16(b.lo, x));
    acc.hi = _mm256_add_epi32(acc.hi, _mm256_madd_epi16(b.hi, x));
  }
  static __m256i sums(const Acc& acc) {
    return _mm256_permute4x64_epi64(_mm256_hadd_epi32(acc.lo, acc.hi), 0xd8);
  }
};

// 7-bit weights: w + 64 unsigned against signed q, vpmaddubsw + vpmaddwd by
// ones (exact: see the top of the file). Acc: one int32 lane per output.
struct Narrow {
  using Rows = QRows<int8_t, 64>;
  using B = __m256i;
  struct Acc {
    __m256i v = _mm256_setzero_si256();
  };
  static B weights(__m256i b) { return _mm256_add_epi8(b, _mm256_set1_epi8(64)); }
  static __m256i x(const Rows& a, size_t i, size_t g) {
    int32_t v;
    std::memcpy(&v, a.q[i] + 4 * g, 4);
    return _mm256_set1_epi32(v);
  }
  static void step(Acc& acc, B b, __m256i x) {
    acc.v = _mm256_add_epi32(acc.v, _mm256_madd_epi16(_mm256_maddubs_epi16(b, x), _mm256_set1_epi16(1)));
  }
  static __m256i sums(const Acc& acc) { return acc.v; }
};

// Step 4 for up to 8 outputs of one row: acc − corr = Σ w q; sw are their
// weight scales.
inline void store(float* y, size_t n, __m256i acc, int32_t corr, float sx, const float* sw) {
  const __m256i m = lanes8(n);
  const __m256 s = _mm256_cvtepi32_ps(_mm256_sub_epi32(acc, _mm256_set1_epi32(corr)));
  const __m256 v = _mm256_mul_ps(_mm256_maskload_ps(sw, m), _mm256_mul_ps(_mm256_set1_ps(sx), s));
  if (n >= 8) _mm256_storeu_ps(y, v);
  else _mm256_maskstore_ps(y, m, v);
}

// Y[i][j0 .. j0 + 8 NB) for rows i < M of `a`, nj valid outputs from j0.
// Full: nj == 8 NB, so the weights need no masked loads (vpmaskmovd costs
// more than a plain load on Intel cores).
template <class P, int M, int NB, bool Full>
void kernel(const typename P::Rows& a, const WeightView& w, size_t j0, size_t nj, float* Y,
            size_t ldy) {
  const uint8_t* d = static_cast<const uint8_t*>(w.data);
  const size_t n = w.rows, groups = w.cols / 4;
  __m256i mask[NB];
#pragma GCC unroll 8
  for (int z = 0; z < NB; ++z) mask[z] = lanes8(nj > size_t(8 * z) ? nj - 8 * z : 0);
  // Fully unrolled loops over the register block, so that the accumulators
  // stay in registers.
  typename P::Acc acc[M][NB];
  for (size_t g = 0; g < groups; ++g) {
    const uint8_t* src = d + (g * n + j0) * 4;
    typename P::B b[NB];
#pragma GCC unroll 8
    for (int z = 0; z < NB; ++z)
      b[z] = P::weights(Full ? _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + 32 * z))
                             : _mm256_maskload_epi32(reinterpret_cast<const int*>(src + 32 * z), mask[z]));
#pragma GCC unroll 8
    for (int i = 0; i < M; ++i) {
      const __m256i x = P::x(a, i, g);
#pragma GCC unroll 8
      for (int z = 0; z < NB; ++z) P::step(acc[i][z], b[z], x);
    }
  }
#pragma GCC unroll 8
  for (int i = 0; i < M; ++i)
#pragma GCC unroll 8
    for (int z = 0; z < NB; ++z)
      if (nj > size_t(8 * z))
        store(Y + i * ldy + j0 + 8 * z, nj - 8 * z, P::sums(acc[i][z]), a.corr[i], a.sx[i],
              w.scales + j0 + 8 * z);
}

// The 7-bit kernel: kernel<Narrow, ...>'s sums, with the products of each
// chunk summed in int16 over the span that QRows::span allows and widened
// once per span (at span 4, five vpmaddubsw-port instructions per four
// products instead of eight). The weights of a chunk are loaded once and
// meet all M rows.
template <int M, int NB, bool Full, bool Sparse>
struct NarrowKernel {
  const Narrow::Rows& a;
  __m256i acc[M][NB] = {};
  const __m256i ones = _mm256_set1_epi16(1);

  // Groups g .. g + kChunk against the weights b, widening every Span groups.
  template <size_t Span>
  void chunk(const __m256i (&b)[kChunk][NB], size_t g) {
#pragma GCC unroll 8
    for (int i = 0; i < M; ++i) {
      __m256i s[NB];
#pragma GCC unroll 8
      for (size_t t = 0; t < kChunk; ++t) {
        const __m256i x = Narrow::x(a, i, g + t);
#pragma GCC unroll 8
        for (int z = 0; z < NB; ++z) {
          const __m256i p = _mm256_maddubs_epi16(b[t][z], x);
          s[z] = t % Span ? _mm256_add_epi16(s[z], p) : p;
          if (t % Span == Span - 1)
            acc[i][z] = _mm256_add_epi32(acc[i][z], _mm256_madd_epi16(s[z], ones));
        }
      }
    }
  }

  void run(const WeightView& w, size_t j0, size_t nj, float* Y, size_t ldy) {
    const uint8_t* d = static_cast<const uint8_t*>(w.data);
    const size_t n = w.rows, groups = Sparse ? a.ng : w.cols / 4;
    __m256i mask[NB];
#pragma GCC unroll 8
    for (int z = 0; z < NB; ++z) mask[z] = lanes8(nj > size_t(8 * z) ? nj - 8 * z : 0);
    auto load = [&](size_t g, int z) {  // q's group g
      const uint8_t* src = d + ((Sparse ? size_t(a.gidx[g]) : g) * n + j0) * 4 + 32 * z;
      return Narrow::weights(Full ? _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src))
                                  : _mm256_maskload_epi32(reinterpret_cast<const int*>(src), mask[z]));
    };
    size_t g = 0;
    for (size_t c = 0; g + kChunk <= groups; ++c, g += kChunk) {
      __m256i b[kChunk][NB];
#pragma GCC unroll 8
      for (size_t t = 0; t < kChunk; ++t)
#pragma GCC unroll 8
        for (int z = 0; z < NB; ++z) b[t][z] = load(g + t, z);
      switch (a.span[c]) {
        case 2: chunk<4>(b, g); break;
        case 1: chunk<2>(b, g); break;
        default: chunk<1>(b, g); break;
      }
    }
    for (; g < groups; ++g)  // the last groups, fewer than a chunk: span 1
#pragma GCC unroll 8
      for (int z = 0; z < NB; ++z) {
        const __m256i b = load(g, z);
#pragma GCC unroll 8
        for (int i = 0; i < M; ++i)
          acc[i][z] = _mm256_add_epi32(
              acc[i][z], _mm256_madd_epi16(_mm256_maddubs_epi16(b, Narrow::x(a, i, g)), ones));
      }
#pragma GCC unroll 8
    for (int i = 0; i < M; ++i)
#pragma GCC unroll 8
      for (int z = 0; z < NB; ++z)
        if (nj > size_t(8 * z))
          store(Y + i * ldy + j0 + 8 * z, nj - 8 * z, acc[i][z], a.corr[i], a.sx[i],
                w.scales + j0 + 8 * z);
  }
};

// The micro-kernels as canonical_i8_blocks.h calls them: prefill panels of
// 8 outputs, decode panels of 32 (more independent sums per row).
constexpr size_t kPanel = 8;
template <class P>
struct Kernels {
  // NB accumulators of 8 outputs a row: a full panel takes the unmasked path.
  template <int M, int NB>
  struct Panel {
    static void run(const typename P::Rows& a, const WeightView& w, size_t j0, size_t nj, float* Y,
                    size_t ldy) {
      if constexpr (std::is_same_v<P, Narrow>) {
        // Separate instantiations: the dense kernel keeps its code.
        if (a.sparse) {
          if (nj == size_t(8 * NB)) NarrowKernel<M, NB, true, true>{a}.run(w, j0, nj, Y, ldy);
          else NarrowKernel<M, NB, false, true>{a}.run(w, j0, nj, Y, ldy);
        } else if (nj == size_t(8 * NB)) {
          NarrowKernel<M, NB, true, false>{a}.run(w, j0, nj, Y, ldy);
        } else {
          NarrowKernel<M, NB, false, false>{a}.run(w, j0, nj, Y, ldy);
        }
      } else {
        if (nj == size_t(8 * NB)) kernel<P, M, NB, true>(a, w, j0, nj, Y, ldy);
        else kernel<P, M, NB, false>(a, w, j0, nj, Y, ldy);
      }
    }
  };
  template <int M>
  using Block = Panel<M, 1>;
  template <int M>
  using DecodeBlock = Panel<M, 4>;

  static void matmul(const WeightView& w, const float* X, size_t ldx, size_t m, float* Y,
                     size_t ldy) {
    typename P::Rows a;
    matmul_blocks<Block, kPanel>(a, w, X, ldx, m, Y, ldy);
  }

  static void matmul_shared(const WeightView* ws, size_t n, const float* X, size_t ldx, size_t m,
                            float* const* Ys, const size_t* ldys) {
    typename P::Rows a;
    matmul_blocks_shared<Block, kPanel>(a, ws, n, X, ldx, m, Ys, ldys);
  }

  // Decode: one row, 32 outputs per pass (4 to 8 independent sums in flight).
  static void matvec(const WeightView& w, const float* x, float* y) {
    typename P::Rows a;
    a.quantize(x, 0, 1, w.cols);
    sweep<DecodeBlock, 1, 32>(a, w, y, 0);
  }

  // The selected rows, 8 at a time: each group's dwords are gathered.
  static void rows_dot(const WeightView& w, const uint32_t* ids, size_t n, const float* x,
                       float* out) {
    typename P::Rows a;
    a.quantize(x, 0, 1, w.cols, false);  // reads q by the weights' groups
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
      typename P::Acc acc;
      for (size_t g = 0; g < groups; ++g)
        P::step(acc, P::weights(_mm256_i32gather_epi32(d + g * w.rows, vi, 4)), P::x(a, 0, g));
      store(out + i0, g8, P::sums(acc), a.corr[0], a.sx[0], sw);
    }
  }
};

}  // namespace

bool fits_avx2(const WeightView& w) { return fits(w, kMaxCols); }

void matmul_avx2(const WeightView& w, const float* X, size_t ldx, size_t m, float* Y,
                 size_t ldy) {
  if (w.bits == 7) return Kernels<Narrow>::matmul(w, X, ldx, m, Y, ldy);
  Kernels<Wide>::matmul(w, X, ldx, m, Y, ldy);
}

void matmul_shared_avx2(const WeightView* ws, size_t n, const float* X, size_t ldx, size_t m,
                        float* const* Ys, const size_t* ldys) {
  if (ws[0].bits == 7) return Kernels<Narrow>::matmul_shared(ws, n, X, ldx, m, Ys, ldys);
  Kernels<Wide>::matmul_shared(ws, n, X, ldx, m, Ys, ldys);
}

void matvec_avx2(const WeightView& w, const float* x, float* y) {
  if (w.bits == 7) return Kernels<Narrow>::matvec(w, x, y);
  Kernels<Wide>::matvec(w, x, y);
}

void rows_dot_avx2(const WeightView& w, const uint32_t* ids, size_t n, const float* x,
                   float* out) {
  if (w.bits == 7) return Kernels<Narrow>::rows_dot(w, ids, n, x, out);
  Kernels<Wide>::rows_dot(w, ids, n, x, out);
}

}  // namespace amxqa::canonical_i8
