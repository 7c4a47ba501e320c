// canonical_bf16_avx512.cpp — canonical_bf16.h's prefill product on 16-lane
// zmm registers, for the AVX-512 table.
//
// The same lane layout as canonical_bf16_avx2.cpp, twice as wide: a zmm holds
// 8 outputs x (even, odd), lane 2j accumulating output j's even partial sum
// and lane 2j+1 its odd one (TDPBF16PS's two fp32 temporaries per output).
// Per column pair the activations' (x[2p], x[2p+1]) are broadcast as one
// 64-bit pair and one FMA advances 16 partial sums. After each 16-pair chunk
// a two-source permute gathers the even and the odd sums of 16 outputs into
// output order, and y = y + (e + o). MXCSR's DAZ and FTZ are set while the
// product runs (FlushDenormals): the definition's steps 1 and 4.
//
// `vdpbf16ps` is not used: it adds the odd product and then the even one into
// one sum per output, where the definition keeps two. So the bf16 weights are
// widened to f32 pairs once, when B is packed, and the micro-kernel is plain
// fp32 FMA: its ceiling is the fp32 FMA peak.
//
// Cores whose zmm FMAs are no faster than ymm ones (AMD Zen 3/4: see
// cpu_zmm_fma_outruns_ymm) run the AVX2 kernel instead: same bits, more speed.
//
// Blocking: gemm_blocking.h, 12 rows x 16 outputs per micro-kernel (24
// accumulators + 2 B + 1 A of 32 zmm), K in blocks of 128 pairs (8 chunks).
// Both operands are packed by the helpers of canonical_bf16_x86.h, which the
// AVX2 kernels share. Decode (matvec, rows_dot) stays on the AVX2 kernels:
// it is bound by reading the weights, not by the FMA width.
#include "kernels/canonical_bf16_avx512.h"

#include <immintrin.h>

#include <cstring>

#include "cpu/isa_select.h"
#include "kernels/canonical_bf16.h"
#include "kernels/canonical_bf16_avx2.h"
#include "kernels/canonical_bf16_x86.h"
#include "kernels/gemm_blocking.h"

namespace amxqa::canonical_bf16 {
namespace {

constexpr size_t kMR = 12, kNR = 16, kKC = 128, kNC = 128;  // KC: column pairs
static_assert(kKC % kChunkPairs == 0, "K blocks are whole chunks");

// (x[2p], x[2p+1]) in every 64-bit lane.
inline __m512 pair_of(const float* x2p) {
  double d;
  std::memcpy(&d, x2p, sizeof d);
  return _mm512_castpd_ps(_mm512_set1_pd(d));
}

// Step 3 for nr <= 16 outputs: lo holds outputs 0-7 and hi outputs 8-15 as
// (even, odd) lanes; y = y + (even + odd), y from +0 on the first chunk.
inline void add_chunk(float* y, size_t nr, bool first, __m512 lo, __m512 hi) {
  const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
  const __m512i odd = _mm512_setr_epi32(1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31);
  const __m512 s = _mm512_add_ps(_mm512_permutex2var_ps(lo, even, hi),
                                 _mm512_permutex2var_ps(lo, odd, hi));
  if (nr == kNR) {
    _mm512_storeu_ps(y, _mm512_add_ps(first ? _mm512_setzero_ps() : _mm512_loadu_ps(y), s));
    return;
  }
  const __mmask16 m = static_cast<__mmask16>((1u << nr) - 1u);
  const __m512 prev = first ? _mm512_setzero_ps() : _mm512_maskz_loadu_ps(m, y);
  _mm512_mask_storeu_ps(y, m, _mm512_add_ps(prev, s));
}

// a: [M][kKC] pairs of rounded activations; b: [kc][16] (output, parity)
// pairs. y stays in C between chunks (add_chunk).
template <int M>
void kernel(size_t kc, const Pair* a, const Pair* b, float* c, size_t ldc, size_t nr,
            bool first) {
  const float* af = &a[0].even;
  const float* bf = &b[0].even;
  for (size_t q0 = 0; q0 < kc; q0 += kChunkPairs) {
    __m512 lo[M], hi[M];  // every loop over them fully unrolled: kept in registers
#pragma GCC unroll 12
    for (int i = 0; i < M; ++i) lo[i] = hi[i] = _mm512_setzero_ps();
    for (size_t q = q0; q < q0 + kChunkPairs; ++q) {
      const __m512 b0 = _mm512_load_ps(bf + q * 32), b1 = _mm512_load_ps(bf + q * 32 + 16);
#pragma GCC unroll 12
      for (int i = 0; i < M; ++i) {
        const __m512 xp = pair_of(af + (i * kKC + q) * 2);
        lo[i] = _mm512_fmadd_ps(xp, b0, lo[i]);
        hi[i] = _mm512_fmadd_ps(xp, b1, hi[i]);
      }
    }
#pragma GCC unroll 12
    for (int i = 0; i < M; ++i) add_chunk(c + i * ldc, nr, first && q0 == 0, lo[i], hi[i]);
  }
}

// The micro-kernel for mr = 1 .. kMR rows.
template <int... Ms>
struct KernelTable {
  using Fn = void (*)(size_t, const Pair*, const Pair*, float*, size_t, size_t, bool);
  static constexpr Fn fns[] = {kernel<Ms>...};
};
struct Micro {
  static void run(size_t mr, size_t kc, const Pair* a, const Pair* b, float* c, size_t ldc,
                  size_t nr, bool first) {
    KernelTable<1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12>::fns[mr - 1](kc, a, b, c, ldc, nr, first);
  }
};

// Below this many rows, streaming the weights per row beats packing them.
constexpr size_t kMatmulMinRows = 4;

}  // namespace

void matmul_avx512(const WeightView& w, const float* X, size_t ldx, size_t m, float* Y,
                   size_t ldy) {
  // Small m: the AVX2 entry streams the weights per row instead of packing.
  if (m < kMatmulMinRows || !cpu_zmm_fma_outruns_ymm()) return matmul_avx2(w, X, ldx, m, Y, ldy);
  matmul_zmm(w, X, ldx, m, Y, ldy);
}

void matmul_zmm(const WeightView& w, const float* X, size_t ldx, size_t m, float* Y, size_t ldy) {
  if (m == 0 || w.rows == 0) return;
  if (w.cols == 0) {
    for (size_t i = 0; i < m; ++i) matvec_avx2(w, X + i * ldx, Y + i * ldy);
    return;
  }
  blocked_product<Bf16Gemm<kMR, kNR, kKC, kNC, Micro>>(w, X, ldx, m, Y, ldy);
}

}  // namespace amxqa::canonical_bf16
