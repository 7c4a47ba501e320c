// canonical_i8_blocks.h — the loop nest that the AVX2 and the AVX-512 int8
// kernels share (canonical_i8_avx2.cpp, canonical_i8_avx512.cpp): activation
// rows in blocks of up to 6, each block quantised once and swept across the
// outputs in panels, so the quantised rows stay in L1 while the weights
// stream past. Each file supplies its quantised-rows type and its
// micro-kernel as Block<M>::run(rows, w, j0, nj, Y, ldy) for M = 1..6.
// Included only by *_avx2.cpp / *_avx512.cpp files; internal linkage, so each
// gets its own copy compiled with its own ISA flags.
#pragma once
#include <cstddef>

#include "kernels/kernels.h"

namespace amxqa::canonical_i8 {
namespace {

constexpr size_t kBlockRows = 6;

// Y[0..M)[0..w.rows) for the M quantised rows of `a`, Panel outputs a call.
template <template <int> class Block, int M, size_t Panel, class Rows>
void sweep(const Rows& a, const WeightView& w, float* Y, size_t ldy) {
  for (size_t j0 = 0; j0 < w.rows; j0 += Panel)
    Block<M>::run(a, w, j0, w.rows - j0 < Panel ? w.rows - j0 : Panel, Y, ldy);
}

// kernels.h's matmul_shared: Y_i[m][ws[i].rows] = X[m][cols] · W_iᵀ for n
// weights of the same cols (and, the callers check, the same Rows type):
// each block of rows is quantised once and swept across every weight.
template <template <int> class Block, size_t Panel, class Rows>
void matmul_blocks_shared(Rows& a, const WeightView* ws, size_t n, const float* X, size_t ldx,
                          size_t m, float* const* Ys, const size_t* ldys) {
  for (size_t i0 = 0; i0 < m; i0 += kBlockRows) {
    const size_t mr = m - i0 < kBlockRows ? m - i0 : kBlockRows;
    a.quantize(X + i0 * ldx, ldx, mr, ws[0].cols);
    for (size_t j = 0; j < n; ++j) {
      const WeightView& w = ws[j];
      const size_t ldy = ldys[j];
      float* y = Ys[j] + i0 * ldy;
      switch (mr) {
        case 1: sweep<Block, 1, Panel>(a, w, y, ldy); break;
        case 2: sweep<Block, 2, Panel>(a, w, y, ldy); break;
        case 3: sweep<Block, 3, Panel>(a, w, y, ldy); break;
        case 4: sweep<Block, 4, Panel>(a, w, y, ldy); break;
        case 5: sweep<Block, 5, Panel>(a, w, y, ldy); break;
        default: sweep<Block, 6, Panel>(a, w, y, ldy); break;
      }
    }
  }
}

// kernels.h's matmul: Y[m][w.rows] = X[m][w.cols] · Wᵀ.
template <template <int> class Block, size_t Panel, class Rows>
void matmul_blocks(Rows& a, const WeightView& w, const float* X, size_t ldx, size_t m, float* Y,
                   size_t ldy) {
  matmul_blocks_shared<Block, Panel>(a, &w, 1, X, ldx, m, &Y, &ldy);
}

// Whether the vector kernels take w: vnni4 rows of at most max_cols columns
// (quantised on the stack), and row ids that fit rows_dot's int32 gathers.
inline bool fits(const WeightView& w, size_t max_cols) {
  return w.layout == Layout::vnni4 && w.cols % 4 == 0 && w.cols <= max_cols &&
         w.rows <= 0x7fffffffu / 4;
}

}  // namespace
}  // namespace amxqa::canonical_i8
