// avx512_gemm_core.h — the AVX-512 GEMM building blocks shared by the
// shipped kernel table (kernels_avx512.cpp) and the trainer's mixed-precision
// sgemm (training/sgemm_bf16_avx512.cpp): the 14×32 f32 and vdpbf16ps
// micro-kernels, the edge-tile row switch, the 16×16 in-register transpose,
// the transposing packer and the bf16 pair builders.
//
// Include it only from *_avx512.cpp files: everything is in an anonymous
// namespace so each including translation unit gets its own copy compiled
// with its own AVX-512 flags (the rule gemm_blocking.h states for traits).
#pragma once
#include <immintrin.h>

#include <cstddef>
#include <cstdint>

// GCC 12's AVX-512 headers self-initialise "undefined" vectors, which trips
// -Wmaybe-uninitialized / -Wuninitialized inside the intrinsics (false positives).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif

namespace amxqa {
namespace {

inline bool cpu_has_bf16() {
  static const bool has = __builtin_cpu_supports("avx512bf16");
  return has;
}

// Lane masks for the first n (0..16) lanes.
inline __mmask16 lanes(size_t n) {
  return n >= 16 ? static_cast<__mmask16>(0xffff) : static_cast<__mmask16>((1u << n) - 1u);
}

// ---------------------------------------------------------------- micro-kernels

constexpr size_t kMR = 14, kNR = 32, kKC = 256, kNC = 128;

// Writes alpha·acc (+ beta·C) for one row of the tile; beta == 0 never reads C.
inline void store_row(float* c, __m512 acc0, __m512 acc1, __mmask16 m0, __mmask16 m1,
                      __m512 alpha, float beta) {
  __m512 r0 = _mm512_mul_ps(alpha, acc0), r1 = _mm512_mul_ps(alpha, acc1);
  if (beta != 0.0f) {
    const __m512 vb = _mm512_set1_ps(beta);
    r0 = _mm512_fmadd_ps(vb, _mm512_maskz_loadu_ps(m0, c), r0);
    r1 = _mm512_fmadd_ps(vb, _mm512_maskz_loadu_ps(m1, c + 16), r1);
  }
  _mm512_mask_storeu_ps(c, m0, r0);
  _mm512_mask_storeu_ps(c + 16, m1, r1);
}

// f32: b is [kc][32]; a is op(A) read in place (never packed): row i of A
// at a + i*lda, or with kTransA the M values of step p at a + p*lda. Both
// stay L1/L2 resident while the kernel sweeps the packed B block, and
// measured no slower than packing them.
template <int M, bool kTransA>
void kernel_f32(size_t kc, const float* a, size_t lda, const float* b, float* c, size_t ldc,
                size_t nr, float alpha, float beta) {
  __m512 acc0[M], acc1[M];
#pragma GCC unroll 14
  for (int i = 0; i < M; ++i) acc0[i] = acc1[i] = _mm512_setzero_ps();
  for (size_t p = 0; p < kc; ++p) {
    const __m512 b0 = _mm512_load_ps(b + p * kNR), b1 = _mm512_load_ps(b + p * kNR + 16);
#pragma GCC unroll 14
    for (int i = 0; i < M; ++i) {
      const __m512 ai = _mm512_set1_ps(kTransA ? a[p * lda + i] : a[i * lda + p]);
      acc0[i] = _mm512_fmadd_ps(ai, b0, acc0[i]);
      acc1[i] = _mm512_fmadd_ps(ai, b1, acc1[i]);
    }
  }
  const __mmask16 m0 = lanes(nr), m1 = lanes(nr > 16 ? nr - 16 : 0);
  const __m512 va = _mm512_set1_ps(alpha);
#pragma GCC unroll 14
  for (int i = 0; i < M; ++i) store_row(c + i * ldc, acc0[i], acc1[i], m0, m1, va, beta);
}

// bf16 pairs: a is [M][kKC] uint32 pairs, b is [kc][32] uint32 pairs; each
// vdpbf16ps adds a[2p]·b[2p] + a[2p+1]·b[2p+1] into f32 lanes.
template <int M>
void kernel_bf16(size_t kc, const uint32_t* a, const uint32_t* b, float* c, size_t ldc,
                 size_t nr, float alpha, float beta) {
  __m512 acc0[M], acc1[M];
#pragma GCC unroll 14
  for (int i = 0; i < M; ++i) acc0[i] = acc1[i] = _mm512_setzero_ps();
  for (size_t p = 0; p < kc; ++p) {
    const __m512bh b0 = (__m512bh)_mm512_load_si512(b + p * kNR);
    const __m512bh b1 = (__m512bh)_mm512_load_si512(b + p * kNR + 16);
#pragma GCC unroll 14
    for (int i = 0; i < M; ++i) {
      // NOLINTNEXTLINE(clang-analyzer-core.CallAndMessage): a[] is fully packed by the caller for p < kc.
      const __m512bh ai = (__m512bh)_mm512_set1_epi32(static_cast<int>(a[i * kKC + p]));
      acc0[i] = _mm512_dpbf16_ps(acc0[i], ai, b0);
      acc1[i] = _mm512_dpbf16_ps(acc1[i], ai, b1);
    }
  }
  const __mmask16 m0 = lanes(nr), m1 = lanes(nr > 16 ? nr - 16 : 0);
  const __m512 va = _mm512_set1_ps(alpha);
#pragma GCC unroll 14
  for (int i = 0; i < M; ++i) store_row(c + i * ldc, acc0[i], acc1[i], m0, m1, va, beta);
}

template <int M>
void kernel_f32_n(size_t kc, const float* a, size_t lda, const float* b, float* c, size_t ldc,
                  size_t nr, float alpha, float beta) {
  kernel_f32<M, false>(kc, a, lda, b, c, ldc, nr, alpha, beta);
}
template <int M>
void kernel_f32_t(size_t kc, const float* a, size_t lda, const float* b, float* c, size_t ldc,
                  size_t nr, float alpha, float beta) {
  kernel_f32<M, true>(kc, a, lda, b, c, ldc, nr, alpha, beta);
}

// Compile-time row count for the edge tiles: mr in 1..14.
#define AMXQA_KERNEL_SWITCH(fn, mr, ...)  \
  switch (mr) {                           \
    case 1: fn<1>(__VA_ARGS__); break;    \
    case 2: fn<2>(__VA_ARGS__); break;    \
    case 3: fn<3>(__VA_ARGS__); break;    \
    case 4: fn<4>(__VA_ARGS__); break;    \
    case 5: fn<5>(__VA_ARGS__); break;    \
    case 6: fn<6>(__VA_ARGS__); break;    \
    case 7: fn<7>(__VA_ARGS__); break;    \
    case 8: fn<8>(__VA_ARGS__); break;    \
    case 9: fn<9>(__VA_ARGS__); break;    \
    case 10: fn<10>(__VA_ARGS__); break;  \
    case 11: fn<11>(__VA_ARGS__); break;  \
    case 12: fn<12>(__VA_ARGS__); break;  \
    case 13: fn<13>(__VA_ARGS__); break;  \
    default: fn<14>(__VA_ARGS__); break;  \
  }

// In-register transpose of 16 rows × 16 32-bit lanes (unpack, shuffle,
// then two 128-bit lane shuffles): packs row-major sources into [p][j] order
// at a quarter of a shuffle per element instead of a load and store each.
inline void transpose16(__m512 r[16]) {
  __m512 t[16];
  for (int i = 0; i < 16; i += 2) {
    t[i] = _mm512_unpacklo_ps(r[i], r[i + 1]);
    t[i + 1] = _mm512_unpackhi_ps(r[i], r[i + 1]);
  }
  for (int i = 0; i < 16; i += 4) {
    r[i] = _mm512_shuffle_ps(t[i], t[i + 2], 0x44);
    r[i + 1] = _mm512_shuffle_ps(t[i], t[i + 2], 0xee);
    r[i + 2] = _mm512_shuffle_ps(t[i + 1], t[i + 3], 0x44);
    r[i + 3] = _mm512_shuffle_ps(t[i + 1], t[i + 3], 0xee);
  }
  for (int i = 0; i < 4; ++i) {
    t[i] = _mm512_shuffle_f32x4(r[i], r[i + 4], 0x88);
    t[i + 4] = _mm512_shuffle_f32x4(r[i], r[i + 4], 0xdd);
    t[i + 8] = _mm512_shuffle_f32x4(r[i + 8], r[i + 12], 0x88);
    t[i + 12] = _mm512_shuffle_f32x4(r[i + 8], r[i + 12], 0xdd);
  }
  for (int i = 0; i < 8; ++i) {
    r[i] = _mm512_shuffle_f32x4(t[i], t[i + 8], 0x88);
    r[i + 8] = _mm512_shuffle_f32x4(t[i], t[i + 8], 0xdd);
  }
}

// Packs op(B) columns that are stored as rows (Bᵀ, or weight rows) into
// dst[panel][p][32]. load(j, p, n) returns 16 consecutive k-values of source
// row j starting at p, zero beyond n valid ones. Missing rows are zeros.
template <class LoadRow>
void pack_rows_transposed(size_t nc, size_t kc, float* dst, const LoadRow& load) {
  for (size_t jr = 0; jr < nc; jr += kNR, dst += kc * kNR) {
    for (size_t h = 0; h < kNR; h += 16) {
      const size_t j0 = jr + h;
      const size_t nj = j0 >= nc ? 0 : (nc - j0 < 16 ? nc - j0 : 16);
      for (size_t p = 0; p < kc; p += 16) {
        const size_t np = kc - p < 16 ? kc - p : 16;
        __m512 r[16];
        for (size_t j = 0; j < 16; ++j) r[j] = j < nj ? load(j0 + j, p, np) : _mm512_setzero_ps();
        transpose16(r);
        for (size_t q = 0; q < np; ++q) _mm512_store_ps(dst + (p + q) * kNR + h, r[q]);
      }
    }
  }
}

// Interleaves two vectors of 16 floats (k and k+1 for the same 16 columns)
// into 16 bf16 pairs, the low half holding k.
inline __m512i pair_up(__m512 k0, __m512 k1) {
  const __m512i idx = _mm512_set_epi16(31, 15, 30, 14, 29, 13, 28, 12, 27, 11, 26, 10, 25, 9, 24,
                                       8, 23, 7, 22, 6, 21, 5, 20, 4, 19, 3, 18, 2, 17, 1, 16, 0);
  return _mm512_permutexvar_epi16(idx, (__m512i)_mm512_cvtne2ps_pbh(k1, k0));
}

// The next 32 k-values of a contiguous row (n of them valid, the rest read as
// 0) as 16 bf16 pairs in natural order (RNE).
inline __m512i row_pairs(const float* row, size_t n) {
  const __m512 lo = _mm512_maskz_loadu_ps(lanes(n), row);
  const __m512 hi = _mm512_maskz_loadu_ps(lanes(n > 16 ? n - 16 : 0), row + 16);
  return (__m512i)_mm512_cvtne2ps_pbh(hi, lo);
}


// The gemm_blocking.h traits shared by every bf16-pair GEMM: blocking, the
// packed element type (one uint32 holds a bf16 pair) and the vdpbf16ps
// micro-kernel. A GEMM derives from it and adds pack_a / pack_b.
struct Bf16PairCore {
  static constexpr size_t MR = kMR, NR = kNR, KC = kKC, NC = kNC;
  using AElem = uint32_t;
  using BElem = uint32_t;
  void kernel(size_t mr, size_t kc, const uint32_t* a, const uint32_t* b, float* c, size_t ldc,
              size_t nr, float alpha, float beta) const {
    AMXQA_KERNEL_SWITCH(kernel_bf16, mr, kc, a, b, c, ldc, nr, alpha, beta)
  }
};

}  // namespace
}  // namespace amxqa
