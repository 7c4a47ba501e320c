// canonical_i8_avx512.cpp — canonical_i8.h on AVX-512 VNNI (vpdpbusd), for
// int8 weights in the vnni4 layout: matvec, matmul and rows_dot of the
// AVX-512 table.
//
// vnni4 ([K/4][N][4]) is the vpdpbusd operand as it is: one 64-byte load is
// 16 outputs x 4 columns, so the weights are read straight from the model,
// never packed. The lanes are outputs; each activation row's 4 columns are
// broadcast as one dword. vpdpbusd multiplies unsigned by signed bytes, so
// the weights are flipped to unsigned (w + 128: one xor of the sign bit per
// load) and the sum corrected by 128 · Σq of the row, which quantisation
// counts anyway: Σ (w + 128) q − 128 Σ q = Σ w q, exactly (int32, wrapping
// as every table's sum does).
//
// Activations are quantised once per block of up to kMR rows (steps 1 and 2
// of the definition, vectorised with the same fp32 operations). fits_avx512
// says which matrices these kernels take; the AVX-512 table gives the others
// to the AVX2 kernels (no VNNI) or the scalar oracle (plain layout, rows
// longer than kMaxCols), which compute the same bits.
#include "kernels/canonical_i8_x86.h"

#include <immintrin.h>

#include <cstring>

#include "cpu/isa_select.h"
#include "kernels/canonical_i8.h"
#include "kernels/canonical_i8_blocks.h"

// GCC 12 warns falsely inside its own AVX-512 intrinsics (as in
// avx512_gemm_core.h).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif

namespace amxqa::canonical_i8 {
namespace {

constexpr size_t kMR = kBlockRows;  // activation rows per micro-kernel
constexpr size_t kNZ = 4;          // zmm of 16 outputs per prefill micro-kernel
constexpr size_t kMaxCols = 4096;  // longest row quantised on the stack

// acc += vpdpbusd(u, s), in place. (GCC 12 compiled the intrinsic on an
// array of accumulators into a dpbusd into a scratch register and a move
// back; this asm, with the register block's loops fully unrolled in kernel(),
// keeps every accumulator in its register: 176 -> 409 GOP/s on one Zen 4
// core, BM_matmul_i8vnni4_avx512.)
inline void dpbusd(__m512i& acc, __m512i u, __m512i s) {
  asm("vpdpbusd %2, %1, %0" : "+v"(acc) : "v"(u), "v"(s));
}

inline __mmask16 lanes16(size_t n) {
  return n >= 16 ? __mmask16(0xffff) : static_cast<__mmask16>((1u << n) - 1u);
}

// Step 2 for 16 values: NaN -> 0 (the zero-masked conversion), clamped,
// rounded half to even (vcvtps2dq under the default MXCSR).
inline __m512i quantize16(__m512 x, __m512 inv) {
  const __m512 lo = _mm512_set1_ps(-127.0f), hi = _mm512_set1_ps(127.0f);
  const __m512 q = _mm512_mul_ps(x, inv);
  const __mmask16 ordered = _mm512_cmp_ps_mask(q, q, _CMP_ORD_Q);
  return _mm512_maskz_cvtps_epi32(ordered, _mm512_min_ps(_mm512_max_ps(q, lo), hi));
}

// Step 1's max |x[c]|: four independent chains over blocks of 64 values, the
// rest 16 at a time (a NaN loaded returns the running max: NaN never wins;
// max is exact in any order).
inline float max_abs(const float* x, size_t k) {
  const size_t full = k / 64 * 64;
  __m512 m0 = _mm512_setzero_ps(), m1 = m0, m2 = m0, m3 = m0;
  size_t c = 0;
  for (; c < full; c += 64) {
    m0 = _mm512_max_ps(_mm512_abs_ps(_mm512_loadu_ps(x + c)), m0);
    m1 = _mm512_max_ps(_mm512_abs_ps(_mm512_loadu_ps(x + c + 16)), m1);
    m2 = _mm512_max_ps(_mm512_abs_ps(_mm512_loadu_ps(x + c + 32)), m2);
    m3 = _mm512_max_ps(_mm512_abs_ps(_mm512_loadu_ps(x + c + 48)), m3);
  }
  for (; c < k; c += 16)
    m0 = _mm512_max_ps(_mm512_abs_ps(_mm512_maskz_loadu_ps(lanes16(k - c), x + c)), m0);
  return _mm512_reduce_max_ps(_mm512_max_ps(_mm512_max_ps(m0, m1), _mm512_max_ps(m2, m3)));
}

// Step 2 for x[0..k) into dst[0..k) (exactly k bytes written); returns Σ q
// when Sum. Full blocks of 64 values store one 64-byte line (saturating packs
// lose nothing: every q is in [-127, 127]); the rest goes 16 at a time.
template <bool Sum>
inline int32_t quantize_values(const float* x, size_t k, float sx, int8_t* dst) {
  const size_t full = k / 64 * 64;
  const __m512 inv = _mm512_set1_ps(inverse(sx));
  __m512i s0 = _mm512_setzero_si512(), s1 = s0;
  // packs work within 128-bit lanes: this puts the 64 bytes back in order.
  const __m512i order = _mm512_set_epi32(15, 11, 7, 3, 14, 10, 6, 2, 13, 9, 5, 1, 12, 8, 4, 0);
  size_t c = 0;
  for (; c < full; c += 64) {
    const __m512i v0 = quantize16(_mm512_loadu_ps(x + c), inv);
    const __m512i v1 = quantize16(_mm512_loadu_ps(x + c + 16), inv);
    const __m512i v2 = quantize16(_mm512_loadu_ps(x + c + 32), inv);
    const __m512i v3 = quantize16(_mm512_loadu_ps(x + c + 48), inv);
    if (Sum) {
      s0 = _mm512_add_epi32(s0, _mm512_add_epi32(v0, v1));
      s1 = _mm512_add_epi32(s1, _mm512_add_epi32(v2, v3));
    }
    const __m512i b = _mm512_packs_epi16(_mm512_packs_epi32(v0, v1), _mm512_packs_epi32(v2, v3));
    _mm512_storeu_si512(dst + c, _mm512_permutexvar_epi32(order, b));
  }
  for (; c < k; c += 16) {
    const __mmask16 m = lanes16(k - c);
    const __m512i v = quantize16(_mm512_maskz_loadu_ps(m, x + c), inv);
    if (Sum) s0 = _mm512_add_epi32(s0, v);
    // (vpmovdb to a register, then a plain store: its memory form is slow on Zen 4)
    _mm_mask_storeu_epi8(dst + c, m, _mm512_cvtepi32_epi8(v));
  }
  return Sum ? _mm512_reduce_add_epi32(_mm512_add_epi32(s0, s1)) : 0;
}

// One activation row, quantised (steps 1 and 2): dst[0..k) = q, zeros up to
// a multiple of 4; returns sx and sets *qsum = Σ q.
float quantize_row(const float* x, size_t k, int8_t* dst, int32_t* qsum) {
  const float sx = max_abs(x, k) / 127.0f;
  *qsum = quantize_values<true>(x, k, sx, dst);
  for (size_t c = k; c % 4; ++c) dst[c] = 0;
  return sx;
}

// A block of activation rows, quantised.
struct QRows {
  alignas(64) int8_t q[kMR][kMaxCols];
  float sx[kMR];
  int32_t corr[kMR];  // 128 · Σ q
  void quantize(const float* X, size_t ldx, size_t m, size_t k) {
    for (size_t i = 0; i < m; ++i) {
      int32_t s;
      sx[i] = quantize_row(X + i * ldx, k, q[i], &s);
      corr[i] = int32_t(uint32_t(s) << 7);
    }
  }
};

// Step 4 for 16 outputs of one row, y masked to `m`.
inline void store(float* y, __mmask16 m, __m512i acc, int32_t corr, float sx, const float* sw) {
  const __m512 s = _mm512_cvtepi32_ps(_mm512_sub_epi32(acc, _mm512_set1_epi32(corr)));
  _mm512_mask_storeu_ps(y, m, _mm512_mul_ps(_mm512_maskz_loadu_ps(m, sw),
                                            _mm512_mul_ps(_mm512_set1_ps(sx), s)));
}

// Y[i][j0 .. j0 + 16 NZ) for rows i < M of `a`, weights vnni4 (`n` outputs
// in all, nj of them from j0 on).
template <int M, int NZ>
void kernel(const QRows& a, const WeightView& w, size_t j0, size_t nj, float* Y, size_t ldy) {
  const uint8_t* d = static_cast<const uint8_t*>(w.data);
  const size_t n = w.rows, groups = w.cols / 4;
  const __m512i flip = _mm512_set1_epi8(static_cast<char>(0x80));
  __mmask16 m[NZ];
#pragma GCC unroll 8
  for (int z = 0; z < NZ; ++z) m[z] = lanes16(nj > size_t(16 * z) ? nj - 16 * z : 0);
  // Fully unrolled loops over the register block, so that the accumulators
  // stay in registers.
  __m512i acc[M][NZ];
#pragma GCC unroll 8
  for (int i = 0; i < M; ++i)
#pragma GCC unroll 8
    for (int z = 0; z < NZ; ++z) acc[i][z] = _mm512_setzero_si512();
  for (size_t g = 0; g < groups; ++g) {
    const uint8_t* src = d + (g * n + j0) * 4;
    __m512i b[NZ];
#pragma GCC unroll 8
    for (int z = 0; z < NZ; ++z)
      b[z] = _mm512_xor_si512(_mm512_maskz_loadu_epi32(m[z], src + 64 * z), flip);
#pragma GCC unroll 8
    for (int i = 0; i < M; ++i) {
      int32_t quad;
      std::memcpy(&quad, a.q[i] + 4 * g, 4);
      const __m512i x = _mm512_set1_epi32(quad);
#pragma GCC unroll 8
      for (int z = 0; z < NZ; ++z) dpbusd(acc[i][z], b[z], x);
    }
  }
#pragma GCC unroll 8
  for (int i = 0; i < M; ++i)
#pragma GCC unroll 8
    for (int z = 0; z < NZ; ++z)
      if (m[z])
        store(Y + i * ldy + j0 + 16 * z, m[z], acc[i][z], a.corr[i], a.sx[i], w.scales + j0 + 16 * z);
}


// The micro-kernels as canonical_i8_blocks.h calls them: prefill panels of
// 16 * kNZ outputs, decode panels of 128 (more independent sums per row).
template <int M>
struct Block {
  static void run(const QRows& a, const WeightView& w, size_t j0, size_t nj, float* Y, size_t ldy) {
    kernel<M, kNZ>(a, w, j0, nj, Y, ldy);
  }
};
constexpr size_t kPanel = 16 * kNZ;
template <int M>
struct DecodeBlock {
  static void run(const QRows& a, const WeightView& w, size_t j0, size_t nj, float* Y, size_t ldy) {
    kernel<M, 8>(a, w, j0, nj, Y, ldy);
  }
};

}  // namespace

bool fits_avx512(const WeightView& w) {
  // AVX-512 without VNNI (Skylake-SP class) gets the AVX2 kernels instead.
  return cpu_has_avx512_vnni() && fits(w, kMaxCols);
}

void matmul_avx512(const WeightView& w, const float* X, size_t ldx, size_t m, float* Y,
                 size_t ldy) {
  QRows a;
  matmul_blocks<Block, kPanel>(a, w, X, ldx, m, Y, ldy);
}

void matmul_shared_avx512(const WeightView* ws, size_t n, const float* X, size_t ldx, size_t m,
                          float* const* Ys, const size_t* ldys) {
  QRows a;
  matmul_blocks_shared<Block, kPanel>(a, ws, n, X, ldx, m, Ys, ldys);
}

// Decode: one row, 128 outputs per pass (8 independent sums in flight).
void matvec_avx512(const WeightView& w, const float* x, float* y) {
  QRows a;
  a.quantize(x, 0, 1, w.cols);
  sweep<DecodeBlock, 1, 128>(a, w, y, 0);
}

// The selected rows, 16 at a time: each group's dwords are gathered.
void rows_dot_avx512(const WeightView& w, const uint32_t* ids, size_t n, const float* x,
                     float* out) {
  QRows a;
  a.quantize(x, 0, 1, w.cols);
  const int8_t* d = static_cast<const int8_t*>(w.data);
  const size_t groups = w.cols / 4;
  const __m512i flip = _mm512_set1_epi8(static_cast<char>(0x80));
  alignas(64) float sw[16];
  for (size_t i0 = 0; i0 < n; i0 += 16) {
    const __mmask16 m = lanes16(n - i0);
    const __m512i idx = _mm512_maskz_loadu_epi32(m, ids + i0);  // spare lanes read row 0
    __m512i acc = _mm512_setzero_si512();
    for (size_t g = 0; g < groups; ++g) {
      const __m512i b = _mm512_i32gather_epi32(idx, d + g * w.rows * 4, 4);
      int32_t quad;
      std::memcpy(&quad, a.q[0] + 4 * g, 4);
      dpbusd(acc, _mm512_xor_si512(b, flip), _mm512_set1_epi32(quad));
    }
    _mm512_store_ps(sw, _mm512_i32gather_ps(idx, w.scales, 4));
    store(out + i0, m, acc, a.corr[0], a.sx[0], sw);
  }
}

// ---- canonical_i8.h's steps over whole rows (canonical_i8_steps.h) ----

float row_scale_avx512(const float* x, size_t k) { return max_abs(x, k) / 127.0f; }

void quantize_avx512(const float* x, size_t k, float sx, int8_t* q) {
  quantize_values<false>(x, k, sx, q);
}

void dequantize_avx512(const int32_t* acc, size_t n, float sx, const float* sw, float* y) {
  for (size_t j = 0; j < n; j += 16) {
    const __mmask16 m = lanes16(n - j);
    const __m512 a = _mm512_cvtepi32_ps(_mm512_maskz_loadu_epi32(m, acc + j));
    _mm512_mask_storeu_ps(y + j, m, _mm512_mul_ps(_mm512_maskz_loadu_ps(m, sw + j),
                                                  _mm512_mul_ps(_mm512_set1_ps(sx), a)));
  }
}

}  // namespace amxqa::canonical_i8
