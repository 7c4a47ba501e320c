// kernels_dotprod.cpp — the "neon_dotprod" table (AMXQA_ISA_NEON_DOTPROD):
// the NEON table (kernels_neon.cpp) with its int8 products on SDOT (Armv8.2-A
// dot product; compiled with -march=armv8.2-a+dotprod and chosen only where
// HWCAP_ASIMDDP says the CPU and OS have it: cpu/arm_detect.h). Everything
// else is the NEON table's. canonical_i8_neon.h says why the bits are the same.
#include <arm_neon.h>

#include "kernels/canonical_i8_neon.h"
#include "kernels/kernels.h"

namespace amxqa {
namespace {

namespace ci = canonical_i8;

// The dot step: sdot adds the 4 products of each output into its lane.
struct Sdot {
  using Acc = int32x4_t;
  static Acc zero() { return vdupq_n_s32(0); }
  static Acc step(Acc a, int8x16_t w, int8x16_t x) { return vdotq_s32(a, w, x); }
  static int32x4_t sum(Acc a) { return a; }
};

const Kernels& neon() { return *kernels_neon(); }

void matvec_dotprod(const WeightView& w, const float* x, float* y) {
  if (ci::fits_neon(w)) return ci::matmul_neon<Sdot>(w, x, 0, 1, y, 0);
  neon().matvec(w, x, y);
}

void matmul_dotprod(const WeightView& w, const float* X, size_t ldx, size_t m, float* Y,
                    size_t ldy) {
  if (ci::fits_neon(w)) return ci::matmul_neon<Sdot>(w, X, ldx, m, Y, ldy);
  neon().matmul(w, X, ldx, m, Y, ldy);
}

void rows_dot_dotprod(const WeightView& w, const uint32_t* ids, size_t n, const float* x,
                      float* out) {
  if (ci::fits_neon(w)) return ci::rows_dot_neon<Sdot>(w, ids, n, x, out);
  neon().rows_dot(w, ids, n, x, out);
}

void matmul_shared_dotprod(const WeightView* ws, size_t n, const float* X, size_t ldx, size_t m,
                           float* const* Ys, const size_t* ldys) {
  bool shared = n > 0 && m > 1;
  for (size_t i = 0; shared && i < n; ++i) shared = ci::fits_neon(ws[i]) && ws[i].cols == ws[0].cols;
  if (shared) return ci::matmul_shared_neon<Sdot>(ws, n, X, ldx, m, Ys, ldys);
  for (size_t i = 0; i < n; ++i) matmul_dotprod(ws[i], X, ldx, m, Ys[i], ldys[i]);
}

}  // namespace

const Kernels* kernels_neon_dotprod() {
  static const Kernels table = [] {
    Kernels k = neon();
    k.name = "neon_dotprod";
    k.matvec = matvec_dotprod;
    k.matmul = matmul_dotprod;
    k.rows_dot = rows_dot_dotprod;
    k.matmul_shared = matmul_shared_dotprod;
    return k;
  }();
  return &table;
}

}  // namespace amxqa
