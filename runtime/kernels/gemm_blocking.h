// gemm_blocking.h — the cache-blocking loop nest shared by the AVX2 and
// AVX-512 GEMMs (GotoBLAS order): B is packed KC×NC at a time into a stack
// buffer that stays in L2, A is packed one MR×KC micro-panel at a time (L1),
// and the ISA's register-blocked micro-kernel sweeps that A panel across the
// packed B block. Nothing is allocated: both buffers live on the stack and
// are bounded by the traits' compile-time KC, NC, MR.
//
// Everything here is a template over a traits type defined in an anonymous
// namespace of the ISA's .cpp file, so every instantiation is local to that
// translation unit and compiled with that file's ISA flags (no ODR mixing of
// AVX-512 and AVX2 code); the one plain helper is static for the same reason.
//
// Traits T must provide:
//   static constexpr size_t MR, NR, KC, NC;  // KC, NC in "k units" / columns
//   using AElem, BElem;                      // packed element types
//   const AElem* pack_a(size_t i0, size_t mr, size_t p0, size_t kc, AElem* dst) const;
//        // packs into dst[i][p] with row stride KC (the micro-kernel broadcasts
//        // a[i*KC + p] with constant displacements) and returns dst, or returns
//        // a pointer into A itself when its layout is already good to read
//        // (e.g. op(A) = Aᵀ: the MR values for one p are contiguous); rows >= mr
//        // are never read
//   void pack_b(size_t j0, size_t nc, size_t p0, size_t kc, BElem* dst) const;
//        // dst[panel][p][NR], panels of NR columns, columns >= nc zero-filled
//   void kernel(size_t mr, size_t kc, const AElem* a, const BElem* b, float* c, size_t ldc,
//               size_t nr, float alpha, float beta) const;
//        // C[mr][nr] = alpha * a·b + beta * C (beta == 0: C is not read)
#pragma once
#include <cstddef>

namespace amxqa {

// m×n result, k_units of reduction (k for f32; k/2 rounded up for bf16 pairs).
template <class T>
void gemm_blocked(const T& t, size_t m, size_t n, size_t k_units, float alpha, float beta,
                  float* C, size_t ldc) {
  alignas(64) typename T::BElem bbuf[T::KC * T::NC];
  alignas(64) typename T::AElem abuf[T::KC * T::MR];
  for (size_t jc = 0; jc < n; jc += T::NC) {
    const size_t nc = n - jc < T::NC ? n - jc : T::NC;
    for (size_t pc = 0; pc < k_units; pc += T::KC) {
      const size_t kc = k_units - pc < T::KC ? k_units - pc : T::KC;
      // The first K block applies the caller's beta; later ones accumulate.
      const float b = pc == 0 ? beta : 1.0f;
      t.pack_b(jc, nc, pc, kc, bbuf);
      for (size_t ic = 0; ic < m; ic += T::MR) {
        const size_t mr = m - ic < T::MR ? m - ic : T::MR;
        const typename T::AElem* a = t.pack_a(ic, mr, pc, kc, abuf);
        for (size_t jr = 0; jr < nc; jr += T::NR) {
          const size_t nr = nc - jr < T::NR ? nc - jr : T::NR;
          t.kernel(mr, kc, a, bbuf + (jr / T::NR) * kc * T::NR, C + ic * ldc + jc + jr, ldc,
                   nr, alpha, b);
        }
      }
    }
  }
}

// C = beta * C for the degenerate k == 0 product (beta == 0 clears, ignoring NaN).
static inline void gemm_scale_only(size_t m, size_t n, float beta, float* C, size_t ldc) {
  for (size_t i = 0; i < m; ++i)
    for (size_t j = 0; j < n; ++j) C[i * ldc + j] = beta == 0.0f ? 0.0f : beta * C[i * ldc + j];
}

}  // namespace amxqa
