// attend_gemm_blocks.h — what the attend_gemm kernels of the SIMD tables
// share (attend_gemm_avx2.cpp, attend_gemm_avx512.cpp, kernels_neon.cpp):
// op(B) packed into stack panels of NR columns, zero-padded past n, KC depth
// steps at a time, the 6-row micro-kernel and the loop nest over panels,
// depth chunks and tiles. Each file supplies its vector traits (with pack:
// the panel packing, attend_gemm_pack_x86.h on x86). Included only by the
// ISA files; internal linkage, so each gets its own copy compiled with its
// own flags.
#pragma once
#include <cstddef>

#include "kernels/kernels.h"

namespace amxqa {
namespace {

constexpr size_t kAttendMR = 6, kAttendKC = 256;

// mr (1..6) rows of A (from a, row stride lda) times the first kc steps of
// the panel into C's first nc columns, with two vectors of V (the file's
// traits: V, kWidth, zero, set1, load, fmadd, mul, and Io for a C row's loads
// and stores) per row. first: the sums start at +0, else from C; last: C gets
// alpha · sum, else the sum (stored unscaled: a store and a load do not
// round). The 12 accumulators are named variables, not an array, so that GCC
// keeps them in registers (with an array it also stores every one to the
// stack on each depth step; inlined into the loop nest, GCC 12 also spilled
// three of the zmm ones, hence noinline); rows past mr repeat row mr−1 and
// are not stored.
template <class V>
__attribute__((noinline)) void tile(const float* a, size_t lda, size_t mr, const float* panel, size_t kc, float* C,
          size_t ldc, size_t nc, bool first, bool last, float alpha) {
  constexpr size_t NR = 2 * V::kWidth;
  const float* a0 = a;
  const float* a1 = a + (mr > 1 ? 1 : 0) * lda;
  const float* a2 = a + (mr > 2 ? 2 : mr - 1) * lda;
  const float* a3 = a + (mr > 3 ? 3 : mr - 1) * lda;
  const float* a4 = a + (mr > 4 ? 4 : mr - 1) * lda;
  const float* a5 = a + (mr > 5 ? 5 : mr - 1) * lda;
  typename V::Vec c00, c01, c10, c11, c20, c21, c30, c31, c40, c41, c50, c51;
  c00 = c01 = c10 = c11 = c20 = c21 = c30 = c31 = c40 = c41 = c50 = c51 = V::zero();
  const typename V::Io io(nc);
  if (!first) {
    io.load(C, c00, c01);
    if (mr > 1) io.load(C + ldc, c10, c11);
    if (mr > 2) io.load(C + 2 * ldc, c20, c21);
    if (mr > 3) io.load(C + 3 * ldc, c30, c31);
    if (mr > 4) io.load(C + 4 * ldc, c40, c41);
    if (mr > 5) io.load(C + 5 * ldc, c50, c51);
  }
  for (size_t i = 0; i < kc; ++i) {
    const typename V::Vec b0 = V::load(panel + i * NR), b1 = V::load(panel + i * NR + V::kWidth);
    typename V::Vec av = V::set1(a0[i]);
    c00 = V::fmadd(av, b0, c00), c01 = V::fmadd(av, b1, c01);
    av = V::set1(a1[i]);
    c10 = V::fmadd(av, b0, c10), c11 = V::fmadd(av, b1, c11);
    av = V::set1(a2[i]);
    c20 = V::fmadd(av, b0, c20), c21 = V::fmadd(av, b1, c21);
    av = V::set1(a3[i]);
    c30 = V::fmadd(av, b0, c30), c31 = V::fmadd(av, b1, c31);
    av = V::set1(a4[i]);
    c40 = V::fmadd(av, b0, c40), c41 = V::fmadd(av, b1, c41);
    av = V::set1(a5[i]);
    c50 = V::fmadd(av, b0, c50), c51 = V::fmadd(av, b1, c51);
  }
  const typename V::Vec va = V::set1(last ? alpha : 1.0f);
  auto out = [&](float* c, typename V::Vec x0, typename V::Vec x1) {
    if (last) x0 = V::mul(va, x0), x1 = V::mul(va, x1);
    io.store(c, x0, x1);
  };
  out(C, c00, c01);
  if (mr > 1) out(C + ldc, c10, c11);
  if (mr > 2) out(C + 2 * ldc, c20, c21);
  if (mr > 3) out(C + 3 * ldc, c30, c31);
  if (mr > 4) out(C + 4 * ldc, c40, c41);
  if (mr > 5) out(C + 5 * ldc, c50, c51);
}

// The causal mask's staircase after tile(): row r (< mr) continues its sums
// (in C, unscaled) over panel steps steps[0] .. steps[r]−1, and gets alpha ·
// sum when last. One row at a time: at most mr − 1 steps per row.
template <class V>
void staircase(const float* a, size_t lda, size_t mr, const float* panel, const size_t* steps,
               float* C, size_t ldc, size_t nc, bool last, float alpha) {
  constexpr size_t NR = 2 * V::kWidth;
  const typename V::Io io(nc);
  for (size_t r = 0; r < mr; ++r) {
    if (!last && steps[r] == steps[0]) continue;
    typename V::Vec x0, x1;
    io.load(C + r * ldc, x0, x1);
    for (size_t i = steps[0]; i < steps[r]; ++i) {
      const typename V::Vec av = V::set1(a[r * lda + i]);
      x0 = V::fmadd(av, V::load(panel + i * NR), x0);
      x1 = V::fmadd(av, V::load(panel + i * NR + V::kWidth), x1);
    }
    if (last) x0 = V::mul(V::set1(alpha), x0), x1 = V::mul(V::set1(alpha), x1);
    io.store(C + r * ldc, x0, x1);
  }
}

// kernels.h's attend_gemm on panels of two V vectors' columns. Under the
// causal mask, score panels that none of a tile's rows sees are skipped (a
// tile may write scores past a row's limit: kernels.h leaves them open), and
// the output's depth stops at the last row's limit, each row at its own.
template <class V>
void attend_blocks(bool trans_b, size_t m, size_t n, size_t k, float alpha, const float* A,
                   size_t lda, const float* B, size_t ldb, float* C, size_t ldc, size_t causal) {
  constexpr size_t NR = 2 * V::kWidth;
  alignas(64) float panel[kAttendKC * NR];
  const size_t cols = trans_b ? causal_limit(causal, m - 1, n) : n;
  const size_t depth = trans_b ? k : causal_limit(causal, m - 1, k);
  for (size_t c0 = 0; c0 < cols; c0 += NR) {
    const size_t nc = n - c0 < NR ? n - c0 : NR;
    // depth == 0 still takes one (empty) chunk: C = alpha · (+0), as in scalar.
    for (size_t k0 = 0; k0 == 0 || k0 < depth; k0 += kAttendKC) {
      const size_t kc = depth - k0 < kAttendKC ? depth - k0 : kAttendKC;
      V::pack(trans_b, B, ldb, k0, kc, c0, nc, panel);
      const bool first = k0 == 0, last = k0 + kc >= depth;
      for (size_t r0 = 0; r0 < m; r0 += kAttendMR) {
        const size_t mr = m - r0 < kAttendMR ? m - r0 : kAttendMR;
        if (trans_b && c0 >= causal_limit(causal, r0 + mr - 1, n)) continue;  // no row sees it
        size_t steps[kAttendMR] = {};
        for (size_t r = 0; r < mr; ++r) {
          const size_t lim = trans_b ? k : causal_limit(causal, r0 + r, k);
          steps[r] = lim <= k0 ? 0 : (lim - k0 < kc ? lim - k0 : kc);
        }
        // Every row's common steps at full rate; the rows that see more keys
        // finish theirs one at a time.
        const bool stair = steps[mr - 1] > steps[0];
        tile<V>(A + r0 * lda + k0, lda, mr, panel, steps[0], C + r0 * ldc + c0, ldc, nc, first,
                last && !stair, alpha);
        if (stair)
          staircase<V>(A + r0 * lda + k0, lda, mr, panel, steps, C + r0 * ldc + c0, ldc, nc, last,
                       alpha);
      }
    }
  }
}

}  // namespace
}  // namespace amxqa
