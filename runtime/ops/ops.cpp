// ops.cpp — see ops.h. Plain loops on purpose: -O3 vectorises them, and the
// trainer's gradient checks run against exactly this code.
#include "ops.h"

#include <cmath>
#include <cstring>

namespace amxqa::ops {

// The prefill hot spots among these loops (RMSNorm, ReLU², the linear-
// attention recurrence) also get an AVX-512 and an AVX2 clone (the baseline
// build is SSE2: 4 lanes), chosen at load time. A clone runs the same operations lane by lane with contraction off (no fused
// multiply-add), so its bits are the baseline build's on every CPU.
// Not under the sanitizers: an ifunc resolver runs while the program is
// being relocated, before their runtimes start (ThreadSanitizer crashed in
// it). (The ifunc symbols are kept out of libamxqa.so's exports by
// libamxqa.map.)
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && \
    !defined(__SANITIZE_THREAD__) && !defined(__SANITIZE_ADDRESS__)
#define AMXQA_VECTOR_CLONES \
  __attribute__((target_clones("avx512f", "avx2", "default"), optimize("fp-contract=off")))
#else
#define AMXQA_VECTOR_CLONES
#endif

AMXQA_VECTOR_CLONES float rmsnorm(const float* x, const float* g, size_t n, float eps, float* y) {
  // Sixteen running sums (lane j takes every i ≡ j mod 16), added in a fixed
  // order at the end: one serial chain of n adds kept GCC from vectorising.
  float lane[16] = {};
  size_t i = 0;
  for (; i + 16 <= n; i += 16)
    for (size_t j = 0; j < 16; ++j) lane[j] += x[i + j] * x[i + j];
  for (size_t j = 0; i + j < n; ++j) lane[j] += x[i + j] * x[i + j];
  float ss = 0.f;
  for (size_t j = 0; j < 16; ++j) ss += lane[j];
  const float inv = 1.0f / std::sqrt(ss / static_cast<float>(n) + eps);
  if (g)
    for (size_t i = 0; i < n; ++i) y[i] = x[i] * inv * g[i];
  else
    for (size_t i = 0; i < n; ++i) y[i] = x[i] * inv;
  return inv;
}

AMXQA_VECTOR_CLONES void rmsnorm_rows(const float* x, size_t ldx, const float* g, size_t m,
                                      size_t n, float eps, float* y, size_t ldy) {
  // rmsnorm's operations row by row, four rows at a time: each row's chain of
  // sums (the step's critical path) overlaps the other three's.
  constexpr size_t R = 4;
  size_t t = 0;
  for (; t + R <= m; t += R) {
    float lane[R][16] = {};
    size_t i = 0;
    for (; i + 16 <= n; i += 16)
      for (size_t r = 0; r < R; ++r)
        for (size_t j = 0; j < 16; ++j) {
          const float v = x[(t + r) * ldx + i + j];
          lane[r][j] += v * v;
        }
    for (size_t r = 0; r < R; ++r)
      for (size_t j = 0; i + j < n; ++j) {
        const float v = x[(t + r) * ldx + i + j];
        lane[r][j] += v * v;
      }
    for (size_t r = 0; r < R; ++r) {
      float ss = 0.f;
      for (size_t j = 0; j < 16; ++j) ss += lane[r][j];
      const float inv = 1.0f / std::sqrt(ss / static_cast<float>(n) + eps);
      const float* xr = x + (t + r) * ldx;
      float* yr = y + (t + r) * ldy;
      if (g)
        for (size_t c = 0; c < n; ++c) yr[c] = xr[c] * inv * g[c];
      else
        for (size_t c = 0; c < n; ++c) yr[c] = xr[c] * inv;
    }
  }
  for (; t < m; ++t) rmsnorm(x + t * ldx, g, n, eps, y + t * ldy);
}

void rope_table(uint32_t pos0, size_t n, size_t hd, float theta, float* cs) {
  const size_t half = hd / 2;
  for (size_t i = 0; i < half; ++i) {
    const double freq = std::pow(static_cast<double>(theta), -2.0 * double(i) / double(hd));
    for (size_t t = 0; t < n; ++t) {
      const double ang = double(pos0 + t) * freq;
      cs[t * hd + i] = static_cast<float>(std::cos(ang));
      cs[t * hd + half + i] = static_cast<float>(std::sin(ang));
    }
  }
}

void rope_apply(float* x, size_t heads, size_t hd, const float* cs, bool inverse) {
  const size_t half = hd / 2;
  const float* c = cs;
  const float* s = cs + half;
  for (size_t h = 0; h < heads; ++h) {
    float* v = x + h * hd;
    if (inverse) {
      for (size_t i = 0; i < half; ++i) {
        const float a = v[i], b = v[i + half], si = -s[i];
        v[i] = a * c[i] - b * si;
        v[i + half] = a * si + b * c[i];
      }
    } else {
      for (size_t i = 0; i < half; ++i) {
        const float a = v[i], b = v[i + half];
        v[i] = a * c[i] - b * s[i];
        v[i + half] = a * s[i] + b * c[i];
      }
    }
  }
}

void question_match(const uint32_t* a, size_t na, const uint32_t* b, size_t nb,
                    const uint32_t* passage, size_t n, uint8_t* flags) {
  for (size_t p = 0; p < n; ++p) {
    const uint32_t id = passage[p];
    bool hit = false;
    for (size_t i = 0; i < na && !hit; ++i) hit = a[i] == id;
    for (size_t i = 0; i < nb && !hit; ++i) hit = b[i] == id;
    flags[p] = hit ? 1 : 0;
  }
}

float softplus(float z) { return z > 20.f ? z : std::log1p(std::exp(z)); }
float lin_decay(float z) { return std::exp(-softplus(z)); }

AMXQA_VECTOR_CLONES void relu2(const float* x, size_t n, float* y) {
  // Negative inputs are zeroed by their sign bit (an integer mask), so GCC
  // vectorises the loop: any float compare here compiled to a branch per
  // element under trapping math, mispredicted half the time.
  for (size_t i = 0; i < n; ++i) {
    int32_t bits;
    std::memcpy(&bits, x + i, sizeof bits);
    // >> of a negative int is arithmetic in GCC and Clang (and in C++20).
    // cppcheck-suppress shiftTooManyBitsSigned
    bits &= ~(bits >> 31);
    float r;
    std::memcpy(&r, &bits, sizeof r);
    y[i] = r * r;
  }
}

float softmax(float* x, size_t n) {
  if (n == 0) return -INFINITY;
  float mx = x[0];
  for (size_t i = 1; i < n; ++i) mx = x[i] > mx ? x[i] : mx;
  float sum = 0.f;
  for (size_t i = 0; i < n; ++i) {
    x[i] = std::exp(x[i] - mx);
    sum += x[i];
  }
  const float inv = 1.0f / sum;
  for (size_t i = 0; i < n; ++i) x[i] *= inv;
  // Never log(0): the maximum itself adds exp(0) = 1 to sum.
  // cppcheck-suppress invalidFunctionArg
  return std::log(sum) + mx;
}

float no_answer_head(const float* W, const float* h, const float* U, size_t ldu, size_t n,
                     size_t d, float* p, float* u, float* wu) {
  softmax(p, n);
  for (size_t j = 0; j < d; ++j) u[j] = 0.f;
  for (size_t i = 0; i < n; ++i)
    for (size_t j = 0; j < d; ++j) u[j] += p[i] * U[i * ldu + j];
  float term = 0.f;
  for (size_t r = 0; r < d; ++r) {
    float acc = 0.f;
    for (size_t c = 0; c < d; ++c) acc += W[r * d + c] * u[c];
    wu[r] = acc;
    term += h[r] * acc;
  }
  return term;
}

void swa_attend(const float* q, const float* K, size_t kstride, const float* V, size_t vstride,
                size_t n, size_t hd, float* probs, float* out) {
  const float scale = 1.0f / std::sqrt(static_cast<float>(hd));
  for (size_t j = 0; j < n; ++j) {
    const float* k = K + j * kstride;
    float s = 0.f;
    for (size_t i = 0; i < hd; ++i) s += q[i] * k[i];
    probs[j] = s * scale;
  }
  softmax(probs, n);
  for (size_t i = 0; i < hd; ++i) out[i] = 0.f;
  for (size_t j = 0; j < n; ++j) {
    const float* v = V + j * vstride;
    const float p = probs[j];
    for (size_t i = 0; i < hd; ++i) out[i] += p * v[i];
  }
}

void swa_block(const AttendKernels& kern, const SwaBlock& b) {
  const size_t keys = b.p0 + b.rows - b.lo;
  const float scale = 1.0f / std::sqrt(static_cast<float>(b.hd));
  // Row r sees keys up to its own position: the first p0 + 1 − lo + r.
  const size_t causal = b.p0 + 1 - b.lo;
  kern.gemm(true, b.rows, keys, b.hd, scale, b.q, b.ldq, b.k, b.ldkv, b.probs, b.ldp, causal);
  for (size_t r = 0; r < b.rows; ++r) {
    const size_t p = b.p0 + r;
    const size_t first = swa_window_lo(p, b.window) - b.lo, end = p + 1 - b.lo;  // keys [first, end)
    float* row = b.probs + r * b.ldp;
    for (size_t j = 0; j < first; ++j) row[j] = 0.f;
    kern.softmax(row + first, end - first);
    for (size_t j = end; j < keys; ++j) row[j] = 0.f;
  }
  kern.gemm(false, b.rows, b.hd, keys, 1.f, b.probs, b.ldp, b.v, b.ldkv, b.out, b.ldo, causal);
}

namespace {

// lin_step's loop for a head size fixed at compile time: o's running sums
// stay in registers (a local array the compiler can keep there) instead of
// going through memory once per state row, whose store-to-load round trip
// was the step's critical path. The operations and their order per element
// are the general loop's, so the bits are too.
template <size_t HD>
inline __attribute__((always_inline)) void lin_step_fixed(float* S, const float* q, const float* k,
                                                          const float* v, float a, float scale,
                                                          size_t dk, float* o) {
  float acc[HD] = {};
  float vv[HD];  // v may alias S as far as the compiler knows: read it once
  for (size_t i = 0; i < HD; ++i) vv[i] = v[i];
  for (size_t r = 0; r < dk; ++r) {
    float* row = S + r * HD;
    const float kr = k[r], qr = q[r] * scale;
    for (size_t i = 0; i < HD; ++i) {
      const float s = a * row[i] + kr * vv[i];
      row[i] = s;
      acc[i] += qr * s;
    }
  }
  for (size_t i = 0; i < HD; ++i) o[i] = acc[i];
}

}  // namespace

AMXQA_VECTOR_CLONES void lin_step(float* S, const float* q, const float* k, const float* v,
                                  float a, size_t dk, size_t hd, float* o) {
  const float scale = 1.0f / std::sqrt(static_cast<float>(dk));
  switch (hd) {  // the model's head sizes
    case 16: return lin_step_fixed<16>(S, q, k, v, a, scale, dk, o);
    case 32: return lin_step_fixed<32>(S, q, k, v, a, scale, dk, o);
    case 64: return lin_step_fixed<64>(S, q, k, v, a, scale, dk, o);
    default: break;
  }
  for (size_t i = 0; i < hd; ++i) o[i] = 0.f;
  for (size_t r = 0; r < dk; ++r) {
    float* row = S + r * hd;
    const float kr = k[r], qr = q[r] * scale;
    for (size_t i = 0; i < hd; ++i) {
      row[i] = a * row[i] + kr * v[i];
      o[i] += qr * row[i];
    }
  }
}

void moe_route(const float* r, size_t E, size_t k, uint32_t* idx, float* gates) {
  // Selection by repeated scan: k is tiny (≤ 8) and E ≤ a few hundred.
  for (size_t s = 0; s < k; ++s) {
    size_t best = E;
    for (size_t i = 0; i < E; ++i) {
      bool taken = false;
      for (size_t t = 0; t < s; ++t) taken |= (idx[t] == i);
      if (taken) continue;
      if (best == E || r[i] > r[best]) best = i;
    }
    idx[s] = static_cast<uint32_t>(best);
    gates[s] = r[best];
  }
  softmax(gates, k);
}

}  // namespace amxqa::ops
