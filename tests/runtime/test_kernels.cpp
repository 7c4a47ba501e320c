// test_kernels.cpp — every ISA kernel table against the scalar oracle, and
// the scalar oracle against a double-precision reference built here from
// the layout definitions in kernels.h. Tables the CPU cannot run are skipped.
//
// Tolerances are relative to the magnitude Σ|w||x| of each output (so
// cancellation does not make them meaningless):
//   f32                                    1e-4
//   sgemm_bf16_avx512 and sgemm_bf16_tiles (emulated, and real AMX where
//   usable) against the product of their bf16-rounded operands 1e-4
// bf16 and i8 weights have no tolerance: every table, the tiles included,
// gives the scalar oracle's bits (canonical_bf16.h, canonical_i8.h). The
// oracle is within 1e-5 of the exact product of the bf16-rounded (bf16) or
// quantised (i8: written out again below) activations.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <algorithm>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "amxqa.h"
#if defined(__x86_64__)
#include "kernels/canonical_bf16_avx512.h"
#endif
#include "kernels/canonical_i8_steps.h"
#include "kernels/kernels.h"
#include "kernels/training/sgemm_bf16.h"
#include "ops/ops.h"

using namespace amxqa;

namespace {

struct Table {
  const char* label;
  const Kernels* k;
};

#if defined(__x86_64__)
// The AVX-512 table with bf16 prefill forced onto the zmm kernel, which the
// table itself skips on cores whose zmm FMAs do not outrun ymm ones.
void matmul_bf16_zmm(const WeightView& w, const float* X, size_t ldx, size_t m, float* Y,
                     size_t ldy) {
  if (w.dtype == DType::bf16) return canonical_bf16::matmul_zmm(w, X, ldx, m, Y, ldy);
  kernels_avx512()->matmul(w, X, ldx, m, Y, ldy);
}
const Kernels* avx512_zmm_table() {
  static const Kernels k = [] {
    Kernels t = *kernels_avx512();
    t.name = "avx512_zmm";
    t.matmul = matmul_bf16_zmm;
    return t;
  }();
  return &k;
}
#endif

// The tile operands' packers are AVX512-BF16 code; elsewhere they are absent.
bool has_avx512bf16() {
#if defined(__x86_64__)
  return __builtin_cpu_supports("avx512bf16");
#else
  return false;
#endif
}

// The optimised tables this CPU can run (the dispatcher makes the same check;
// on aarch64 it reads HWCAP, as the NEON tables' callers must).
std::vector<Table> fast_tables() {
  std::vector<Table> t;
#if defined(__x86_64__)
  if (kernels_avx2() && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
    t.push_back({"avx2", kernels_avx2()});
  if (kernels_avx512() && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq")) {
    t.push_back({"avx512", kernels_avx512()});
    t.push_back({"avx512_zmm", avx512_zmm_table()});
  }
#endif
  if (const Kernels* k = kernels_for_isa(AMXQA_ISA_NEON)) t.push_back({"neon", k});
  if (const Kernels* k = kernels_for_isa(AMXQA_ISA_NEON_DOTPROD)) t.push_back({"neon_dotprod", k});
  return t;
}

std::mt19937& rng() {
  static std::mt19937 g(12345);
  return g;
}
float uniform(float lo, float hi) { return std::uniform_real_distribution<float>(lo, hi)(rng()); }
std::vector<float> random_vec(size_t n) {
  std::vector<float> v(n);
  for (float& f : v) f = uniform(-1.0f, 1.0f);
  return v;
}

// A weight matrix in one dtype/layout plus its exact logical f32 values.
struct TestWeights {
  WeightView view;
  std::vector<float> logical;  // [rows][cols], what the stored bits mean
  std::vector<float> f32;
  std::vector<uint16_t> bf16;
  std::vector<int8_t> i8;
  std::vector<float> scales;
};

// bits 7: i8 weights in [-64, 63] (WeightView::bits, the AVX2 vpmaddubsw path).
TestWeights make_weights(DType dt, Layout lay, uint32_t rows, uint32_t cols, uint8_t bits = 8) {
  TestWeights t;
  t.logical.resize(size_t(rows) * cols);
  t.view.dtype = dt;
  t.view.layout = lay;
  t.view.rows = rows;
  t.view.cols = cols;
  auto at = [&](size_t r, size_t c) -> float& { return t.logical[r * cols + c]; };
  if (dt == DType::f32) {
    t.f32 = random_vec(t.logical.size());
    t.logical = t.f32;
    t.view.data = t.f32.data();
  } else if (dt == DType::bf16) {
    t.bf16.resize(t.logical.size());
    for (size_t r = 0; r < rows; ++r)
      for (size_t c = 0; c < cols; ++c) {
        const uint16_t b = f32_to_bf16(uniform(-1.0f, 1.0f));
        at(r, c) = bf16_to_f32(b);
        const size_t idx = lay == Layout::vnni2 ? ((c / 2) * rows + r) * 2 + (c & 1) : r * cols + c;
        t.bf16[idx] = b;
      }
    t.view.data = t.bf16.data();
  } else {
    t.i8.resize(t.logical.size());
    t.scales.resize(rows);
    for (float& s : t.scales) s = uniform(0.001f, 0.02f);
    std::uniform_int_distribution<int> q(bits == 7 ? -64 : -127, bits == 7 ? 63 : 127);
    t.view.bits = bits;
    for (size_t r = 0; r < rows; ++r)
      for (size_t c = 0; c < cols; ++c) {
        const int8_t v = static_cast<int8_t>(q(rng()));
        at(r, c) = t.scales[r] * v;
        const size_t idx = lay == Layout::vnni4 ? ((c / 4) * rows + r) * 4 + (c & 3) : r * cols + c;
        t.i8[idx] = v;
      }
    t.view.data = t.i8.data();
    t.view.scales = t.scales.data();
  }
  return t;
}

// |got - ref| <= tol * mag (+ a denormal-sized floor for all-zero outputs).
void check_close(const float* got, const float* ref, const float* mag, size_t n, float tol,
                 const std::string& what) {
  size_t bad = 0;
  for (size_t i = 0; i < n; ++i) {
    const double err = std::fabs(double(got[i]) - double(ref[i]));
    if (!(err <= tol * mag[i] + 1e-30)) {
      if (bad++ < 3)
        FAIL_CHECK(what << " [" << i << "]: got " << got[i] << " want " << ref[i] << " (mag "
                        << mag[i] << ")");
    }
  }
  CHECK_MESSAGE(bad == 0, what << ": " << bad << " of " << n << " outside tolerance");
}

// Bit-identical outputs (bf16 weights on every table).
void check_same_bits(const float* got, const float* want, size_t n, const std::string& what) {
  size_t bad = 0;
  for (size_t i = 0; i < n; ++i)
    if (std::memcmp(&got[i], &want[i], sizeof(float)) != 0 && bad++ < 3)
      FAIL_CHECK(what << " [" << i << "]: got " << got[i] << " want " << want[i]);
  CHECK_MESSAGE(bad == 0, what << ": " << bad << " of " << n << " differ from the oracle's bits");
}

struct Case {
  DType dt;
  Layout lay;
  const char* name;
  uint8_t bits = 8;
};
const Case kCases[] = {{DType::f32, Layout::plain, "f32"},
                       {DType::bf16, Layout::plain, "bf16"},
                       {DType::bf16, Layout::vnni2, "bf16_vnni2"},
                       {DType::i8, Layout::plain, "i8"},
                       {DType::i8, Layout::vnni4, "i8_vnni4"},
                       {DType::i8, Layout::vnni4, "i7_vnni4", 7}};

bool cols_ok(Layout lay, uint32_t cols) {
  return lay == Layout::plain || (lay == Layout::vnni2 && cols % 2 == 0) ||
         (lay == Layout::vnni4 && cols % 4 == 0);
}

// canonical_i8.h's activations, written out from its text: sx · q[c].
std::vector<float> quantised(const float* x, size_t n) {
  float amax = 0.0f;
  for (size_t c = 0; c < n; ++c)
    if (std::fabs(x[c]) > amax) amax = std::fabs(x[c]);
  const float sx = amax / 127.0f, inv = sx > 0.0f ? 1.0f / sx : 0.0f;
  std::vector<float> v(n);
  for (size_t c = 0; c < n; ++c) {
    const float q = x[c] * inv;
    v[c] = sx * std::nearbyint(std::isnan(q) ? 0.0f : std::clamp(q, -127.0f, 127.0f));
  }
  return v;
}

// Reference y = W x in double and its magnitude Σ|w||x|; bf16 weights
// multiply bf16-rounded activations (canonical_bf16.h), i8 weights quantised
// ones (canonical_i8.h).
void reference_matvec(const TestWeights& t, const float* x, std::vector<float>& y,
                      std::vector<float>& mag) {
  const size_t R = t.view.rows, C = t.view.cols;
  y.assign(R, 0.0f);
  mag.assign(R, 0.0f);
  const std::vector<float> xq = quantised(x, C);
  for (size_t r = 0; r < R; ++r) {
    double s = 0, a = 0;
    for (size_t c = 0; c < C; ++c) {
      const float xc = t.view.dtype == DType::bf16 ? bf16_to_f32(f32_to_bf16(x[c]))
                       : t.view.dtype == DType::i8 ? xq[c]
                                                   : x[c];
      s += double(t.logical[r * C + c]) * xc;
      a += std::fabs(double(t.logical[r * C + c]) * xc);
    }
    y[r] = float(s);
    mag[r] = float(a);
  }
}

const uint32_t kRows[] = {1, 15, 17, 33, 130};
const uint32_t kCols[] = {1, 15, 16, 36, 300, 520};

}  // namespace

TEST_SUITE("unit") {
  TEST_CASE("bf16 conversion rounds to nearest even and keeps NaN") {
    CHECK(f32_to_bf16(1.0f) == 0x3f80);
    CHECK(bf16_to_f32(0x3f80) == 1.0f);
    // 1 + 2^-8 is exactly halfway between 1 and 1 + 2^-7: ties go to even (1).
    CHECK(f32_to_bf16(1.0f + std::ldexp(1.0f, -8)) == 0x3f80);
    // 1 + 3·2^-8 is halfway between 1 + 2^-7 (odd) and 1 + 2^-6: goes up to even.
    CHECK(f32_to_bf16(1.0f + 3 * std::ldexp(1.0f, -8)) == 0x3f82);
    // Just above halfway rounds up.
    CHECK(f32_to_bf16(1.0f + std::ldexp(1.0f, -8) + std::ldexp(1.0f, -20)) == 0x3f81);
    CHECK(f32_to_bf16(-0.0f) == 0x8000);
    CHECK(f32_to_bf16(std::numeric_limits<float>::infinity()) == 0x7f80);
    CHECK(f32_to_bf16(-std::numeric_limits<float>::infinity()) == 0xff80);
    CHECK(f32_to_bf16(std::numeric_limits<float>::max()) == 0x7f80);  // rounds to +inf
    // A NaN whose payload lies only in the dropped bits must stay NaN.
    uint32_t nan_bits = 0x7f800001u;
    float nan;
    std::memcpy(&nan, &nan_bits, 4);
    CHECK(std::isnan(bf16_to_f32(f32_to_bf16(nan))));
    CHECK(std::isnan(bf16_to_f32(f32_to_bf16(std::numeric_limits<float>::quiet_NaN()))));
    // Every bf16 value survives the round trip (NaNs stay NaN).
    for (uint32_t b = 0; b < 0x10000; ++b) {
      const float f = bf16_to_f32(static_cast<uint16_t>(b));
      if (std::isnan(f)) {
        REQUIRE(std::isnan(bf16_to_f32(f32_to_bf16(f))));
      } else {
        REQUIRE(f32_to_bf16(f) == b);
      }
    }
  }

  TEST_CASE("scalar matvec, matmul and rows_dot match a double reference for every layout") {
    const Kernels& s = kernels_scalar();
    CHECK(std::string(s.name) == "scalar");
    for (const Case& cs : kCases)
      for (uint32_t rows : kRows)
        for (uint32_t cols : kCols) {
          if (!cols_ok(cs.lay, cols)) continue;
          const TestWeights t = make_weights(cs.dt, cs.lay, rows, cols, cs.bits);
          const std::vector<float> x = random_vec(cols);
          std::vector<float> ref, mag, y(rows);
          reference_matvec(t, x.data(), ref, mag);
          const std::string what = std::string(cs.name) + " " + std::to_string(rows) + "x" +
                                   std::to_string(cols);
          s.matvec(t.view, x.data(), y.data());
          check_close(y.data(), ref.data(), mag.data(), rows, 1e-5f, "scalar matvec " + what);
          s.matmul(t.view, x.data(), cols, 1, y.data(), rows);
          check_close(y.data(), ref.data(), mag.data(), rows, 1e-5f, "scalar matmul " + what);
          const uint32_t ids[3] = {rows - 1, 0, rows / 2};
          float out[3];
          s.rows_dot(t.view, ids, 3, x.data(), out);
          for (int i = 0; i < 3; ++i)
            check_close(&out[i], &ref[ids[i]], &mag[ids[i]], 1, 1e-5f, "scalar rows_dot " + what);
        }
  }

  TEST_CASE("optimised matvec, matmul and rows_dot match scalar") {
    const Kernels& s = kernels_scalar();
    for (const Table& tb : fast_tables()) {
      for (const Case& cs : kCases)
        for (uint32_t rows : kRows)
          for (uint32_t cols : kCols) {
            if (!cols_ok(cs.lay, cols)) continue;
            const TestWeights t = make_weights(cs.dt, cs.lay, rows, cols, cs.bits);
            const std::string what = std::string(tb.label) + " " + cs.name + " " +
                                     std::to_string(rows) + "x" + std::to_string(cols);
            // Magnitudes: Σ|w||x| per output, from the logical matrix.
            auto magnitudes = [&](const float* x, float* mag) {
              for (size_t r = 0; r < rows; ++r) {
                double a = 0;
                for (size_t c = 0; c < cols; ++c) a += std::fabs(double(t.logical[r * cols + c]) * x[c]);
                mag[r] = float(a);
              }
            };
            // matvec
            const std::vector<float> x = random_vec(cols);
            std::vector<float> want(rows), got(rows), mag(rows);
            magnitudes(x.data(), mag.data());
            const bool exact = cs.dt != DType::f32;  // bf16 and i8: the oracle's bits
            s.matvec(t.view, x.data(), want.data());
            tb.k->matvec(t.view, x.data(), got.data());
            if (exact) check_same_bits(got.data(), want.data(), rows, "matvec " + what);
            else check_close(got.data(), want.data(), mag.data(), rows, 1e-4f, "matvec " + what);
            // rows_dot, ids with repeats and both ends
            const uint32_t ids[5] = {0, rows - 1, rows / 3, 0, rows / 2};
            float out[5], ref[5], mg[5];
            s.rows_dot(t.view, ids, 5, x.data(), ref);
            tb.k->rows_dot(t.view, ids, 5, x.data(), out);
            for (int i = 0; i < 5; ++i) mg[i] = mag[ids[i]];
            if (exact) check_same_bits(out, ref, 5, "rows_dot " + what);
            else check_close(out, ref, mg, 5, 1e-4f, "rows_dot " + what);
            // matmul with padded strides: padding must stay untouched
            for (size_t m : {size_t(1), size_t(2), size_t(4), size_t(17), size_t(40), size_t(70)}) {
              const size_t ldx = cols + 3, ldy = rows + 5;
              const std::vector<float> X = random_vec(m * ldx);
              std::vector<float> Yw(m * ldy, -7.0f), Yg(m * ldy, -7.0f), M(m * ldy, 0.0f);
              for (size_t i = 0; i < m; ++i) magnitudes(X.data() + i * ldx, M.data() + i * ldy);
              s.matmul(t.view, X.data(), ldx, m, Yw.data(), ldy);
              tb.k->matmul(t.view, X.data(), ldx, m, Yg.data(), ldy);
              const std::string mw = "matmul m=" + std::to_string(m) + " " + what;
              if (exact) check_same_bits(Yg.data(), Yw.data(), Yg.size(), mw);
              else check_close(Yg.data(), Yw.data(), M.data(), Yg.size(), 1e-4f, mw);
            }
          }
    }
  }

  TEST_CASE("sgemm: scalar against double, optimised tables against scalar") {
    struct Shape {
      size_t m, n, k;
    };
    // Edge sizes around the 14×32 tile, and K/N beyond one cache block.
    const Shape shapes[] = {{1, 1, 1},    {15, 17, 33},  {17, 33, 15},  {29, 255, 7},
                            {33, 1, 300}, {1, 130, 33},  {64, 64, 64},  {31, 300, 270},
                            {14, 32, 256}, {3, 5, 0}};
    const Kernels& s = kernels_scalar();
    std::vector<Table> tables = fast_tables();
    tables.insert(tables.begin(), Table{"scalar", &s});
    const float nan = std::numeric_limits<float>::quiet_NaN();
    for (const Shape& sh : shapes)
      for (int ta = 0; ta < 2; ++ta)
        for (int tb = 0; tb < 2; ++tb)
          for (int ab = 0; ab < 2; ++ab) {
            const float alpha = ab ? -1.5f : 1.0f, beta = ab ? 0.5f : 0.0f;
            // op(A) is m×k, stored k×m when transposed; strides padded by 3.
            const size_t lda = (ta ? sh.m : sh.k) + 3, ldb = (tb ? sh.k : sh.n) + 3,
                         ldc = sh.n + 3;
            const std::vector<float> A = random_vec((ta ? sh.k : sh.m) * lda);
            const std::vector<float> B = random_vec((tb ? sh.n : sh.k) * ldb);
            const std::vector<float> C0 = random_vec(sh.m * ldc);
            auto opA = [&](size_t i, size_t p) { return ta ? A[p * lda + i] : A[i * lda + p]; };
            auto opB = [&](size_t p, size_t j) { return tb ? B[j * ldb + p] : B[p * ldb + j]; };
            std::vector<float> ref(sh.m * ldc), mag(sh.m * ldc, 0.0f);
            for (size_t i = 0; i < sh.m; ++i)
              for (size_t j = 0; j < sh.n; ++j) {
                double acc = 0, a = 0;
                for (size_t p = 0; p < sh.k; ++p) {
                  acc += double(opA(i, p)) * opB(p, j);
                  a += std::fabs(double(opA(i, p)) * opB(p, j));
                }
                const double c = C0[i * ldc + j];
                ref[i * ldc + j] = float(alpha * acc + beta * c);
                mag[i * ldc + j] = float(std::fabs(alpha) * a + std::fabs(beta * c)) + 1e-6f;
              }
            const std::string shape = std::string(ta ? "T" : "N") + (tb ? "T" : "N") +
                                      " m=" + std::to_string(sh.m) + " n=" + std::to_string(sh.n) +
                                      " k=" + std::to_string(sh.k);
            // C to compute into: beta == 0 must ignore C, even NaN.
            auto fresh_c = [&] {
              std::vector<float> C = C0;
              if (beta == 0.0f)
                for (size_t i = 0; i < sh.m; ++i)
                  for (size_t j = 0; j < sh.n; ++j) C[i * ldc + j] = nan;
              return C;
            };
            // C against want(i, j) within tol·mag; padding columns must be untouched.
            auto check_c = [&](const std::vector<float>& C, auto want_at, float tol, const std::string& what) {
              std::vector<float> got, want, mg;
              for (size_t i = 0; i < sh.m; ++i)
                for (size_t j = 0; j < ldc; ++j) {
                  if (j >= sh.n) {
                    REQUIRE(C[i * ldc + j] == C0[i * ldc + j]);
                    continue;
                  }
                  got.push_back(C[i * ldc + j]);
                  want.push_back(want_at(i, j));
                  mg.push_back(mag[i * ldc + j]);
                }
              check_close(got.data(), want.data(), mg.data(), got.size(), tol, what);
            };
            auto exact = [&](size_t i, size_t j) { return ref[i * ldc + j]; };
            for (const Table& t : tables) {
              std::vector<float> C = fresh_c();
              t.k->sgemm(ta, tb, sh.m, sh.n, sh.k, alpha, A.data(), lda, B.data(), ldb, beta,
                         C.data(), ldc);
              check_c(C, exact, 1e-4f,
                      std::string(t.label) + " sgemm " + shape + " beta=" + std::to_string(beta));
            }
            // The trainer's bf16 compute modes: the product of the
            // bf16-rounded operands, accumulated in f32.
            auto r16 = [](float x) { return double(bf16_to_f32(f32_to_bf16(x))); };
            auto rounded = [&](size_t i, size_t j) {
              double acc = 0;
              for (size_t p = 0; p < sh.k; ++p) acc += r16(opA(i, p)) * r16(opB(p, j));
              return float(alpha * acc + beta * C0[i * ldc + j]);
            };
            // On tiles: the emulator (its packers need AVX512-BF16), and real
            // tiles where the CPU and OS allow them.
            for (TileProduct tiles : {tile_product_emulated(), tile_product_amx()}) {
              if (!tiles || sh.k == 0 || !has_avx512bf16()) continue;
              std::vector<float> C = fresh_c();
              REQUIRE(sgemm_bf16_tiles(tiles, ta, tb, sh.m, sh.n, sh.k, alpha, A.data(), lda,
                                       B.data(), ldb, beta, C.data(), ldc));
              check_c(C, rounded, 1e-4f,
                      std::string("sgemm_bf16_tiles ") +
                          (tiles == tile_product_amx() ? "(AMX) " : "(emulated) ") + shape);
            }
            // With vdpbf16ps.
            const bool avx512 = std::any_of(tables.begin(), tables.end(), [](const Table& t) {
              return t.k == kernels_avx512();
            });
            std::vector<float> C = C0;
            if (!avx512 || !sgemm_bf16_avx512(ta, tb, sh.m, sh.n, sh.k, alpha, A.data(), lda,
                                              B.data(), ldb, beta, C.data(), ldc))
              continue;
            check_c(C, rounded, 1e-4f, "sgemm_bf16_avx512 " + shape);
          }
  }

  TEST_CASE("tile operands: pack_tile_a / pack_tile_b lay out op(A) and op(B) as the tiles read them") {
    if (!has_avx512bf16()) return;  // the packers' instructions
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> u(-2.f, 2.f);
    const size_t sizes[][2] = {{1, 1}, {16, 32}, {17, 33}, {40, 7}, {5, 70}, {33, 64}};
    for (const auto& sz : sizes)
      for (int t = 0; t < 2; ++t) {
        const size_t rows = sz[0], k = sz[1], ld = (t ? rows : k) + 2;  // stored [k][rows] when t
        std::vector<float> X((t ? k : rows) * ld);
        for (float& x : X) x = u(rng);
        auto op = [&](size_t i, size_t p) { return t ? X[p * ld + i] : X[i * ld + p]; };
        const size_t kp = tile_pairs(k), rp = tile_rows(rows);
        REQUIRE(kp % 16 == 0);
        REQUIRE(kp * 2 >= k);
        // The pair of value kk, kk + 1 of row i, zero beyond k.
        auto pair = [&](size_t i, size_t p) {
          if (i >= rows || 2 * p >= k) return uint32_t(0);
          const uint32_t lo = f32_to_bf16(op(i, 2 * p));
          const uint32_t hi = 2 * p + 1 < k ? f32_to_bf16(op(i, 2 * p + 1)) : 0;
          return lo | hi << 16;
        };
        std::vector<uint32_t> a(rp * kp, 0xdeadbeef), b(kp * rp, 0xdeadbeef);
        // As A: op(A) = X (t = 0) or the stored matrix transposed (t = 1).
        REQUIRE(pack_tile_a(t == 1, rows, k, X.data(), ld, a.data()));
        // As B: op(B) [k][rows] = the same values, column i of op(B) = row i above:
        // stored [k][rows] (trans_b = 0) when t, [rows][k] (trans_b = 1) when not.
        REQUIRE(pack_tile_b(t == 0, k, rows, X.data(), ld, b.data()));
        size_t bad_a = 0, bad_b = 0;
        for (size_t i = 0; i < rp; ++i)
          for (size_t p = 0; p < kp; ++p) {
            bad_a += a[i * kp + p] != pair(i, p);
            bad_b += b[p * rp + i] != pair(i, p);
          }
        CHECK_MESSAGE(bad_a == 0, "A rows=" << rows << " k=" << k << " t=" << t);
        CHECK_MESSAGE(bad_b == 0, "B rows=" << rows << " k=" << k << " t=" << t);
      }
  }

  // canonical_bf16.h at its edges: denormal and tiny operands (DAZ / FTZ),
  // products below the normal range, huge values, exact cancellation, every
  // K remainder of the 32-column chunk, and m on both sides of the tiles'
  // threshold (16). The amx_emulated table runs the tile kernels.
  TEST_CASE("bf16 products: every table and the tiles give the oracle's bits at the edges") {
    std::vector<Table> tables = fast_tables();
    tables.push_back({"amx_emulated", kernels_amx_emulated()});
    if (const Kernels* amx = kernels_for_isa(AMXQA_ISA_AMX)) tables.push_back({"amx", amx});
    const float edge[] = {1e-39f, -3e-39f, 1e-38f, 1.2e-38f, 1e-20f, -1e-22f, 3e38f, -2e38f,
                          0.0f,   -0.0f,   1.0f,   -1.0f,    0.5f,   65504.0f, 1e-3f, 7.0f};
    auto edgy = [&](size_t n) {
      std::vector<float> v = random_vec(n);
      for (size_t i = 0; i < n; i += 3) v[i] = edge[(i / 3) % 16];
      return v;
    };
    const Kernels& s = kernels_scalar();
    for (Layout lay : {Layout::plain, Layout::vnni2})
      for (uint32_t cols : {2u, 30u, 32u, 34u, 63u, 64u, 96u, 520u}) {
        if (!cols_ok(lay, cols)) continue;
        const uint32_t rows = 19;
        TestWeights t = make_weights(DType::bf16, lay, rows, cols);
        for (size_t i = 0; i < t.bf16.size(); i += 5) t.bf16[i] = f32_to_bf16(edge[(i / 5) % 16]);
        for (const Table& tb : tables) {
          const std::string what = std::string(tb.label) + (lay == Layout::plain ? " plain " : " vnni2 ") +
                                   std::to_string(rows) + "x" + std::to_string(cols);
          for (size_t m : {size_t(1), size_t(5), size_t(16), size_t(17), size_t(33)}) {
            const std::vector<float> X = edgy(m * cols);
            std::vector<float> Yw(m * rows), Yg(m * rows);
            s.matmul(t.view, X.data(), cols, m, Yw.data(), rows);
            tb.k->matmul(t.view, X.data(), cols, m, Yg.data(), rows);
            check_same_bits(Yg.data(), Yw.data(), Yg.size(), "matmul m=" + std::to_string(m) + " " + what);
          }
          const std::vector<float> x = edgy(cols);
          std::vector<float> yw(rows), yg(rows);
          s.matvec(t.view, x.data(), yw.data());
          tb.k->matvec(t.view, x.data(), yg.data());
          check_same_bits(yg.data(), yw.data(), rows, "matvec " + what);
          const uint32_t ids[11] = {3, 0, 18, 3, 7, 9, 11, 12, 13, 1, 2};
          float ow[11], og[11];
          s.rows_dot(t.view, ids, 11, x.data(), ow);
          tb.k->rows_dot(t.view, ids, 11, x.data(), og);
          check_same_bits(og, ow, 11, "rows_dot " + what);
        }
      }
  }

  // canonical_i8.h at its edges: rows that are all zero, hold a NaN or an
  // inf, are tiny (denormal scale) or huge, values exactly half a step apart
  // (round half to even), all at +-amax (every q = +-127), weights at both
  // ends of their range (8-bit: -128 and 127; 7-bit: -64 and 63, in runs of
  // whole vnni4 groups, so that AVX2's vpmaddubsw sees its largest pair sums,
  // 2 · 127 · 127 with the weights made unsigned), every column count the
  // vector kernels take and one they hand to the oracle, m on both sides of
  // the tiles' threshold (16) and of the micro-kernels' row blocks.
  TEST_CASE("i8 products: every table and the tiles give the oracle's bits at the edges") {
    std::vector<Table> tables = fast_tables();
    tables.push_back({"amx_emulated", kernels_amx_emulated()});
    if (const Kernels* amx = kernels_for_isa(AMXQA_ISA_AMX)) tables.push_back({"amx", amx});
    const float inf = std::numeric_limits<float>::infinity();
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const float edge[] = {0.5f, 1.5f, -2.5f, 1e-39f, -3e-39f, 3e38f, 0.0f, -0.0f, 127.0f, -1.0f};
    // Row kinds, by row index modulo 7: plain random, with edge values, all
    // zero, one NaN, one inf, all tiny, all +-1 in runs of 8 (q = +-127).
    auto row_of = [&](size_t i, size_t n) {
      std::vector<float> v = random_vec(n);
      switch (i % 7) {
        case 1: for (size_t c = 0; c < n; c += 3) v[c] = edge[(c / 3) % 10]; break;
        case 2: std::fill(v.begin(), v.end(), 0.0f); break;
        case 3: v[n / 2] = nan; break;
        case 4: v[n / 3] = -inf; break;
        case 5: for (float& f : v) f *= 1e-38f; break;
        case 6: for (size_t c = 0; c < n; ++c) v[c] = (c / 8) % 2 ? -1.0f : 1.0f; break;
        default: break;
      }
      return v;
    };
    const Kernels& s = kernels_scalar();
    for (uint8_t bits : {8, 7})
    for (uint32_t cols : {4u, 32u, 36u, 64u, 520u, 4100u}) {
      const uint32_t rows = 37;
      TestWeights t = make_weights(DType::i8, Layout::vnni4, rows, cols, bits);
      if (bits == 8) {
        for (size_t i = 0; i < t.i8.size(); i += 7) t.i8[i] = (i / 7) % 2 ? int8_t(-128) : int8_t(127);
      } else {
        // Runs of 3 groups of one output at 63, of 2 at -64 (vnni4: 4 bytes a group).
        for (size_t i = 0; i < t.i8.size(); ++i) {
          const size_t run = (i / 4) % 5;
          if (run < 3) t.i8[i] = 63;
          else if (run == 3) t.i8[i] = -64;
        }
      }
      for (const Table& tb : tables) {
        const std::string what = std::string(tb.label) + (bits == 7 ? " i7" : " i8") + " vnni4 " +
                                 std::to_string(rows) + "x" + std::to_string(cols);
        for (size_t m : {size_t(1), size_t(5), size_t(7), size_t(16), size_t(17), size_t(33)}) {
          std::vector<float> X;
          for (size_t i = 0; i < m; ++i) {
            const std::vector<float> r = row_of(i, cols);
            X.insert(X.end(), r.begin(), r.end());
          }
          std::vector<float> Yw(m * rows), Yg(m * rows);
          s.matmul(t.view, X.data(), cols, m, Yw.data(), rows);
          tb.k->matmul(t.view, X.data(), cols, m, Yg.data(), rows);
          check_same_bits(Yg.data(), Yw.data(), Yg.size(), "matmul m=" + std::to_string(m) + " " + what);
        }
        for (size_t kind = 0; kind < 7; ++kind) {
          const std::vector<float> x = row_of(kind, cols);
          std::vector<float> yw(rows), yg(rows);
          s.matvec(t.view, x.data(), yw.data());
          tb.k->matvec(t.view, x.data(), yg.data());
          check_same_bits(yg.data(), yw.data(), rows, "matvec kind " + std::to_string(kind) + " " + what);
          const uint32_t ids[19] = {3, 0, 36, 3, 7, 9, 11, 12, 13, 1, 2, 20, 21, 22, 23, 24, 25, 26, 35};
          float ow[19], og[19];
          s.rows_dot(t.view, ids, 19, x.data(), ow);
          tb.k->rows_dot(t.view, ids, 19, x.data(), og);
          check_same_bits(og, ow, 19, "rows_dot kind " + std::to_string(kind) + " " + what);
        }
      }
    }
    // The row steps the tiles quantise their panels with (canonical_i8_steps.h):
    // the chosen ones (AVX-512 where the CPU has it) against the plain loops.
    const canonical_i8::Steps& fast = canonical_i8::steps();
    const canonical_i8::Steps& plain = canonical_i8::steps_scalar();
    for (size_t k : {size_t(1), size_t(15), size_t(16), size_t(63), size_t(64), size_t(200), size_t(1031)})
      for (size_t kind = 0; kind < 6; ++kind) {
        const std::vector<float> x = row_of(kind, k);
        const float sx = plain.row_scale(x.data(), k);
        const float sx_fast = fast.row_scale(x.data(), k);
        REQUIRE(std::memcmp(&sx, &sx_fast, 4) == 0);
        std::vector<int8_t> qw(k + 1, 7), qg(k + 1, 7);  // the byte after k stays untouched
        plain.quantize(x.data(), k, sx, qw.data());
        fast.quantize(x.data(), k, sx, qg.data());
        REQUIRE_MESSAGE(qw == qg, "quantize k=" << k << " kind " << kind);
        std::vector<int32_t> acc(k);
        for (size_t j = 0; j < k; ++j) acc[j] = int32_t(qw[j]) * int32_t(1000 + 37 * j) - 5000;
        const std::vector<float> sw = random_vec(k);
        std::vector<float> yw(k), yg(k);
        plain.dequantize(acc.data(), k, sx, sw.data(), yw.data());
        fast.dequantize(acc.data(), k, sx, sw.data(), yg.data());
        check_same_bits(yg.data(), yw.data(), k, "dequantize k=" + std::to_string(k));
      }
  }

  // AVX2's 7-bit kernel sums the vpmaddubsw of 2 or 4 vnni4 groups in int16
  // where the activations allow it (canonical_i8_avx2.cpp, mark_spans):
  // an output lane's sum of (w + 64) q stays within 127 · 258. Rows built so
  // that those sums sit exactly at the bound (±32,766, with w + 64 = 127),
  // and one past it over 4 groups while each 2 stay within (so a span of 4
  // would wrap), mixed in row blocks with rows that allow no span at all.
  TEST_CASE("i8 products: 7-bit int16 spans at their bound give the oracle's bits") {
    const uint32_t rows = 21, cols = 80;  // 5 chunks of 16 columns
    TestWeights t = make_weights(DType::i8, Layout::vnni4, rows, cols, 7);
    for (uint32_t r = 0; r < 16; ++r)  // outputs 0-7 at 63 (w + 64 = 127), 8-15 at -64 (0)
      for (uint32_t c = 0; c < cols; ++c) t.i8[((c / 4) * rows + r) * 4 + (c & 3)] = r < 8 ? 63 : -64;
    // q = x (amax 127). Lane 0 of a group: columns 4g, 4g + 1; lane 1: 4g + 2, 4g + 3.
    auto row_of = [&](size_t kind) {
      std::vector<float> v(cols, 0.0f);
      if (kind == 0) {
        const int at[][2] = {{0, 127}, {1, 127}, {4, 4},        // chunk 0 lane 0: 258
                             {2, -127}, {3, -127}, {14, -4},    // chunk 0 lane 1: -258
                             {16, 127}, {17, 2}, {24, 127}, {25, 3},       // chunk 1 lane 0: 129 + 130
                             {50, -127}, {51, -2}, {58, -127}, {59, -3},   // chunk 3 lane 1: -259
                             {64, 86}, {68, 86}, {72, 86}, {76, 1}};      // chunk 4 lane 0: 259
        for (const auto& a : at) v[a[0]] = float(a[1]);
        for (size_t c = 32; c < 48; ++c) v[c] = c % 2 ? 1.0f : -1.0f;  // chunk 2: small
      } else if (kind == 1) {
        v = random_vec(cols);
        v[5] = 1.0f;  // amax: the rest quantises to ~uniform q in [-127, 127]
      } else {
        for (size_t c = 0; c < cols; ++c) v[c] = float(int(c % 7) - 3);
        v[40] = 127.0f;
      }
      return v;
    };
    const Kernels& s = kernels_scalar();
    for (const Table& tb : fast_tables())
      for (size_t m : {size_t(1), size_t(3), size_t(6), size_t(7), size_t(13)}) {
        std::vector<float> X;
        for (size_t i = 0; i < m; ++i) {
          // The first block of 6 rows: only rows at the bound and small ones.
          const std::vector<float> r = row_of(i >= 6 ? 1 : i % 2 ? 2 : 0);
          X.insert(X.end(), r.begin(), r.end());
        }
        std::vector<float> Yw(m * rows), Yg(m * rows);
        s.matmul(t.view, X.data(), cols, m, Yw.data(), rows);
        tb.k->matmul(t.view, X.data(), cols, m, Yg.data(), rows);
        check_same_bits(Yg.data(), Yw.data(), Yg.size(),
                        std::string(tb.label) + " i7 spans matmul m=" + std::to_string(m));
        std::vector<float> yw(rows), yg(rows);
        s.matvec(t.view, X.data(), yw.data());
        tb.k->matvec(t.view, X.data(), yg.data());
        check_same_bits(yg.data(), yw.data(), rows, std::string(tb.label) + " i7 spans matvec");
      }
  }

  // AVX2's 7-bit kernel drops the groups of 4 columns that are zero in every
  // row of a block and sums the rest (canonical_i8_avx2.cpp, compact_groups),
  // as FFN down's input after ReLU² mostly is. Live groups hold q = ±127 and
  // outputs 0-7 weights at 63 (w + 64 = 127), so a span of 2 over two live
  // groups wraps: spans marked before the groups were packed together (where
  // every other group is zero they allow 2) would show. Blocks with no zero
  // group, a few (under an eighth: not compacted), every other one, rows
  // with different ones, all, and only the last; decode and rows_dot too.
  TEST_CASE("i8 products: 7-bit rows with groups zero across a block give the oracle's bits") {
    const Kernels& s = kernels_scalar();
    for (uint32_t cols : {32u, 36u, 128u, 644u}) {
      const uint32_t rows = 19, groups = cols / 4;
      TestWeights t = make_weights(DType::i8, Layout::vnni4, rows, cols, 7);
      for (uint32_t r = 0; r < 8; ++r)
        for (uint32_t c = 0; c < cols; ++c) t.i8[((c / 4) * rows + r) * 4 + (c & 3)] = 63;
      auto live = [&](size_t kind, size_t g, size_t row) {
        switch (kind) {
          case 0: return true;
          case 1: return g % 16 != 5;
          case 2: return g % 2 == 0;
          case 3: return g % 3 == row % 2;  // the block's union is compacted
          case 4: return false;
          default: return g + 1 == groups;
        }
      };
      auto row_of = [&](size_t kind, size_t row) {
        std::vector<float> v(cols, 0.0f);
        for (size_t c = 0; c < cols; ++c)
          if (live(kind, c / 4, row)) v[c] = kind < 2 ? uniform(-1.0f, 1.0f) : row % 2 ? -127.0f : 127.0f;
        return v;
      };
      for (const Table& tb : fast_tables()) {
        const std::string what = std::string(tb.label) + " i7 zero groups " + std::to_string(cols);
        for (size_t kind = 0; kind < 6; ++kind)
          for (size_t m : {size_t(1), size_t(6), size_t(13)}) {
            std::vector<float> X;
            for (size_t i = 0; i < m; ++i) {
              const std::vector<float> r = row_of(i >= 6 ? (kind + 1) % 6 : kind, i);
              X.insert(X.end(), r.begin(), r.end());
            }
            std::vector<float> Yw(m * rows), Yg(m * rows);
            s.matmul(t.view, X.data(), cols, m, Yw.data(), rows);
            tb.k->matmul(t.view, X.data(), cols, m, Yg.data(), rows);
            check_same_bits(Yg.data(), Yw.data(), Yg.size(),
                            what + " matmul kind " + std::to_string(kind) + " m=" + std::to_string(m));
          }
        for (size_t kind = 0; kind < 6; ++kind) {
          const std::vector<float> x = row_of(kind, 0);
          std::vector<float> yw(rows), yg(rows);
          s.matvec(t.view, x.data(), yw.data());
          tb.k->matvec(t.view, x.data(), yg.data());
          check_same_bits(yg.data(), yw.data(), rows, what + " matvec kind " + std::to_string(kind));
          const uint32_t ids[5] = {18, 0, 7, 7, 3};
          float ow[5], og[5];
          s.rows_dot(t.view, ids, 5, x.data(), ow);
          tb.k->rows_dot(t.view, ids, 5, x.data(), og);
          check_same_bits(og, ow, 5, what + " rows_dot kind " + std::to_string(kind));
        }
      }
    }
  }

  // matmul_shared (attention's q, k and v from one input): each product has
  // the oracle's bits, with one quantisation shared by 7-bit weights, by
  // 8-bit ones, and a fallback to one matmul each for mixed bits or dtypes;
  // dense rows and rows whose zero groups the 7-bit kernel compacts; the
  // columns past each output's rows are left alone.
  TEST_CASE("matmul_shared: every product gives the oracle's bits") {
    const Kernels& s = kernels_scalar();
    for (uint32_t cols : {36u, 128u, 644u}) {
      const uint32_t rows[3] = {19, 8, 33};
      std::vector<std::pair<std::string, std::vector<TestWeights>>> sets;
      for (uint8_t bits : {uint8_t(7), uint8_t(8)}) {
        std::vector<TestWeights> w;
        for (uint32_t r : rows) w.push_back(make_weights(DType::i8, Layout::vnni4, r, cols, bits));
        sets.emplace_back("i" + std::to_string(bits), std::move(w));
      }
      {
        std::vector<TestWeights> w;
        w.push_back(make_weights(DType::i8, Layout::vnni4, rows[0], cols, 7));
        w.push_back(make_weights(DType::i8, Layout::vnni4, rows[1], cols, 8));
        w.push_back(make_weights(DType::bf16, Layout::vnni2, rows[2], cols));
        sets.emplace_back("mixed", std::move(w));
      }
      for (const Table& tb : fast_tables()) {
        REQUIRE_MESSAGE(bool(tb.k->matmul_shared), tb.label);
        for (const auto& [name, w] : sets)
          for (size_t m : {size_t(2), size_t(6), size_t(13)})
            for (bool zero_groups : {false, true}) {
              std::vector<float> X = random_vec(m * cols);
              if (zero_groups)  // every other group of 4 columns zero in every row
                for (size_t i = 0; i < X.size(); ++i) X[i] *= ((i % cols) / 4) % 2 ? 0.0f : 1.0f;
              const WeightView ws[3] = {w[0].view, w[1].view, w[2].view};
              std::vector<float> got[3], want[3];
              float* Ys[3];
              size_t ldys[3];
              for (size_t j = 0; j < 3; ++j) {
                ldys[j] = rows[j] + 3;
                got[j].assign(m * ldys[j], 7.0f);
                want[j] = got[j];
                Ys[j] = got[j].data();
                s.matmul(ws[j], X.data(), cols, m, want[j].data(), ldys[j]);
              }
              tb.k->matmul_shared(ws, 3, X.data(), cols, m, Ys, ldys);
              for (size_t j = 0; j < 3; ++j)
                check_same_bits(got[j].data(), want[j].data(), got[j].size(),
                                std::string(tb.label) + " " + name + " cols " + std::to_string(cols) +
                                    " m=" + std::to_string(m) + " zero groups " +
                                    std::to_string(zero_groups) + " product " + std::to_string(j));
            }
      }
    }
  }

  // dot_rows and softmax follow kernels.h's canonical order: the scalar
  // table is checked against double, every other table against scalar bit
  // for bit (the same answers on every ISA rest on it).
  TEST_CASE("dot_rows: scalar near double, every table bit-identical to scalar") {
    std::vector<Table> tables = fast_tables();
    tables.push_back({"amx_emulated", kernels_amx_emulated()});
    for (size_t d : {size_t(1), size_t(7), size_t(16), size_t(33), size_t(256), size_t(300)})
      for (size_t n : {size_t(1), size_t(3), size_t(4), size_t(9), size_t(130)}) {
        const size_t ld = d + 5;  // padded rows: the padding must not be read into sums
        const std::vector<float> rows = random_vec(n * ld), x = random_vec(d);
        const std::vector<float> base = random_vec(n);
        std::vector<float> want = base;
        kernels_scalar().dot_rows(rows.data(), ld, n, x.data(), d, want.data());
        for (size_t i = 0; i < n; ++i) {
          double ref = base[i], mag = std::fabs(base[i]);
          for (size_t c = 0; c < d; ++c) {
            ref += double(rows[i * ld + c]) * x[c];
            mag += std::fabs(double(rows[i * ld + c]) * x[c]);
          }
          REQUIRE(std::fabs(want[i] - ref) <= 1e-5 * mag + 1e-30);
        }
        for (const Table& t : tables) {
          std::vector<float> got = base;
          t.k->dot_rows(rows.data(), ld, n, x.data(), d, got.data());
          for (size_t i = 0; i < n; ++i)
            REQUIRE_MESSAGE(got[i] == want[i], t.label << " d=" << d << " n=" << n << " row " << i);
        }
      }
  }

  // attend_gemm (prefill attention's products) sums in kernels.h's order:
  // scalar near double, every table and the tile tables bit-identical to it,
  // over both sides of the SIMD kernels' 6-row, 16/32-column and 256-deep
  // blocks, without and with the causal mask (row r: causal + r columns of
  // the scores, or depth steps of the output; limits inside, at and past a
  // panel's edge).
  TEST_CASE("attend_gemm: scalar near double, every table bit-identical to scalar") {
    std::vector<Table> tables = fast_tables();
    tables.push_back({"amx_emulated", kernels_amx_emulated()});
    if (kernels_amx()) tables.push_back({"amx", kernels_amx()});  // delegates off AMX CPUs
    for (bool tb : {false, true})
      for (size_t m : {size_t(1), size_t(5), size_t(6), size_t(13)})
        for (size_t n : {size_t(1), size_t(8), size_t(16), size_t(33)})
          for (size_t k : {size_t(0), size_t(1), size_t(32), size_t(255), size_t(257), size_t(600)})
            for (size_t causal : {kNoCausalLimit, size_t(0), size_t(1), size_t(15), size_t(31),
                                  size_t(250)}) {
              const size_t lda = k + 3, ldb = (tb ? k : n) + 2, ldc = n + 1;
              std::vector<float> A = random_vec(m * lda), B = random_vec((tb ? n : k) * ldb);
              A[0] = 1e-40f;  // a denormal operand: no table may flush it
              if (k > 1) A[1] = -0.0f;
              const float alpha = -0.176776695f;  // 1/sqrt(32), negated: k = 0 gives -0
              std::vector<float> want(m * ldc, 7.0f), got;
              kernels_scalar().attend_gemm(tb, m, n, k, alpha, A.data(), lda, B.data(), ldb,
                                           want.data(), ldc, causal);
              for (size_t r = 0; r < m; ++r) {
                const size_t cols = tb ? causal_limit(causal, r, n) : n;
                const size_t depth = tb ? k : causal_limit(causal, r, k);
                for (size_t j = 0; j < n; ++j) {
                  if (j >= cols) {  // the scalar table leaves masked scores alone
                    REQUIRE(want[r * ldc + j] == 7.0f);
                    continue;
                  }
                  double ref = 0, mag = 0;
                  for (size_t i = 0; i < depth; ++i) {
                    const double t = double(A[r * lda + i]) * (tb ? B[j * ldb + i] : B[i * ldb + j]);
                    ref += t;
                    mag += std::fabs(t);
                  }
                  REQUIRE(std::fabs(want[r * ldc + j] - alpha * ref) <= 1e-5 * mag + 1e-30);
                }
              }
              for (const Table& t : tables) {
                got.assign(m * ldc, 7.0f);  // the padding column must stay untouched
                t.k->attend_gemm(tb, m, n, k, alpha, A.data(), lda, B.data(), ldb, got.data(), ldc,
                                 causal);
                for (size_t r = 0; r < m; ++r) {
                  // Masked scores are open (any value); all else is the oracle's bits.
                  const size_t cols = tb ? causal_limit(causal, r, n) : n;
                  REQUIRE_MESSAGE(std::memcmp(got.data() + r * ldc, want.data() + r * ldc,
                                              cols * sizeof(float)) == 0,
                                  t.label << " tb=" << tb << " m=" << m << " n=" << n << " k=" << k
                                          << " causal=" << causal << " row " << r);
                  REQUIRE_MESSAGE(got[r * ldc + n] == 7.0f, t.label);
                }
              }
            }
  }

  TEST_CASE("softmax: scalar near the exact one, every table bit-identical to scalar") {
    std::vector<Table> tables = fast_tables();
    tables.push_back({"amx_emulated", kernels_amx_emulated()});
    for (size_t n : {size_t(1), size_t(5), size_t(8), size_t(17), size_t(64), size_t(255)})
      for (float spread : {1.0f, 30.0f, 200.0f}) {  // 200: many terms below exp's cut-off
        std::vector<float> x = random_vec(n);
        for (float& v : x) v *= spread;
        std::vector<float> want = x;
        const float lse = kernels_scalar().softmax(want.data(), n);
        double mx = x[0];
        for (float v : x) mx = std::max(mx, double(v));
        double sum = 0;
        for (float v : x) sum += std::exp(double(v) - mx);
        CHECK(std::fabs(lse - (std::log(sum) + mx)) <= 1e-5 * (1 + std::fabs(mx)));
        for (size_t i = 0; i < n; ++i)
          REQUIRE(std::fabs(want[i] - std::exp(double(x[i]) - mx) / sum) <= 2e-6);
        for (const Table& t : tables) {
          std::vector<float> got = x;
          const float l = t.k->softmax(got.data(), n);
          CHECK(l == lse);
          for (size_t i = 0; i < n; ++i)
            REQUIRE_MESSAGE(got[i] == want[i], t.label << " n=" << n << " [" << i << "]");
        }
      }
    // The vector tables take the maximum in another order: a maximum of +0
    // and -0 (either may win) and a maximum in the masked tail still give
    // the scalar table's bits, the log-sum-exp included.
    for (size_t n : {size_t(3), size_t(9), size_t(16), size_t(23), size_t(40)})
      for (size_t at : {size_t(0), n / 2, n - 1}) {
        std::vector<float> x = random_vec(n);
        for (size_t i = 0; i < n; ++i) x[i] = -1.0f - std::fabs(x[i]) - float(i % 3);
        x[at] = 0.0f;
        x[(at + 1) % n] = -0.0f;
        std::vector<float> want = x;
        const float lse = kernels_scalar().softmax(want.data(), n);
        for (const Table& t : tables) {
          std::vector<float> got = x;
          const float l = t.k->softmax(got.data(), n);
          REQUIRE_MESSAGE(std::memcmp(&l, &lse, sizeof l) == 0, t.label << " n=" << n << " at " << at);
          REQUIRE_MESSAGE(std::memcmp(got.data(), want.data(), n * sizeof(float)) == 0,
                          t.label << " n=" << n << " at " << at);
        }
      }
  }

  TEST_CASE("ops::lin_step: the fixed head sizes give the general loop's bits") {
    // lin_step keeps o's sums in registers for head sizes 16, 32 and 64; this
    // is the general loop it must equal bit for bit (state and output), over
    // several steps so that the state's rounding carries.
    const auto general = [](float* S, const float* q, const float* k, const float* v, float a,
                            size_t dk, size_t hd, float* o) {
      const float scale = 1.0f / std::sqrt(static_cast<float>(dk));
      for (size_t i = 0; i < hd; ++i) o[i] = 0.f;
      for (size_t r = 0; r < dk; ++r) {
        float* row = S + r * hd;
        const float kr = k[r], qr = q[r] * scale;
        for (size_t i = 0; i < hd; ++i) {
          const volatile float s = a * row[i] + kr * v[i];  // no contraction
          row[i] = s;
          const volatile float t = qr * row[i];
          o[i] = o[i] + t;
        }
      }
    };
    for (size_t hd : {size_t(16), size_t(32), size_t(48), size_t(64)})
      for (size_t dk : {size_t(1), size_t(7), size_t(32)}) {
        std::vector<float> S1(dk * hd, 0.f), S2(dk * hd, 0.f), o1(hd), o2(hd);
        for (int step = 0; step < 4; ++step) {
          const auto q = random_vec(dk), k = random_vec(dk), v = random_vec(hd);
          const float a = 0.5f + 0.1f * float(step);
          ops::lin_step(S1.data(), q.data(), k.data(), v.data(), a, dk, hd, o1.data());
          general(S2.data(), q.data(), k.data(), v.data(), a, dk, hd, o2.data());
          for (size_t i = 0; i < hd; ++i)
            REQUIRE_MESSAGE(o1[i] == o2[i], "hd=" << hd << " dk=" << dk << " o[" << i << "]");
          for (size_t i = 0; i < dk * hd; ++i)
            REQUIRE_MESSAGE(S1[i] == S2[i], "hd=" << hd << " dk=" << dk << " S[" << i << "]");
        }
      }
  }

  TEST_CASE("ops::rmsnorm_rows gives rmsnorm's bits row by row") {
    for (size_t n : {size_t(1), size_t(16), size_t(32), size_t(37), size_t(256)})
      for (size_t m : {size_t(1), size_t(3), size_t(4), size_t(9)})
        for (bool gain : {false, true}) {
          const size_t ld = n + 3;
          std::vector<float> x = random_vec(m * ld), g = random_vec(n);
          x[0] = 1e-30f;  // a tiny value among ordinary ones
          std::vector<float> want(m * ld, -1.f), got(m * ld, -1.f), inplace = x;
          for (size_t t = 0; t < m; ++t)
            ops::rmsnorm(x.data() + t * ld, gain ? g.data() : nullptr, n, 1e-5f, want.data() + t * ld);
          ops::rmsnorm_rows(x.data(), ld, gain ? g.data() : nullptr, m, n, 1e-5f, got.data(), ld);
          ops::rmsnorm_rows(inplace.data(), ld, gain ? g.data() : nullptr, m, n, 1e-5f,
                            inplace.data(), ld);
          for (size_t t = 0; t < m; ++t)
            for (size_t c = 0; c < n; ++c) {
              const size_t i = t * ld + c;
              REQUIRE_MESSAGE(std::memcmp(&got[i], &want[i], 4) == 0, "n=" << n << " m=" << m << " [" << i << "]");
              REQUIRE(std::memcmp(&inplace[i], &want[i], 4) == 0);
            }
          for (size_t t = 0; t < m; ++t)  // the gaps between rows are left alone
            for (size_t c = n; c < ld; ++c) REQUIRE(got[t * ld + c] == -1.f);
        }
  }

  TEST_CASE("kernel tables are named for their ISA") {
    CHECK(std::string(kernels_scalar().name) == "scalar");
    if (kernels_avx2()) CHECK(std::string(kernels_avx2()->name) == "avx2_fma");
    if (kernels_avx512()) CHECK(std::string(kernels_avx512()->name) == "avx512");
    if (kernels_neon()) CHECK(std::string(kernels_neon()->name) == "neon");
    if (kernels_neon_dotprod()) CHECK(std::string(kernels_neon_dotprod()->name) == "neon_dotprod");
#if defined(__aarch64__)
    CHECK(kernels_neon() != nullptr);  // every aarch64 build has both Arm tables
    CHECK(kernels_neon_dotprod() != nullptr);
    CHECK(kernels_avx2() == nullptr);
#else
    CHECK(kernels_neon() == nullptr);
#endif
  }
}
