// test_amx.cpp — the AMX backend: detection, the SDM tile emulator, and the
// tile GEMMs (emulated everywhere; real ones too on a CPU with usable AMX),
// each checked against kernels_scalar() or an independent reference.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "cpu/amx_detect.h"
#include "kernels/amx/amx_thread.h"
#include "kernels/amx/tile_emulator.h"
#include "kernels/kernels.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

using namespace amxqa;
namespace emu = amxqa::amx_emu;

namespace {

emu::TileConfig full_config() {
  emu::TileConfig c{};
  c.palette_id = 1;
  for (int t = 0; t < 8; ++t) {
    c.colsb[t] = 64;
    c.rows[t] = 16;
  }
  return c;
}

// Fresh emulator state for each test case (doctest runs them on one thread).
struct EmuReset {
  EmuReset() {
    amx_release_thread_state();
    emu::clear_tile_fault();
  }
  ~EmuReset() {
    amx_release_thread_state();
    emu::clear_tile_fault();
  }
};

float bits_f32(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

// ---- weight packing (the layouts of kernels.h) ---------------------------

std::vector<uint16_t> pack_vnni2(const std::vector<float>& W, size_t rows, size_t cols) {
  std::vector<uint16_t> d(rows * cols);
  for (size_t r = 0; r < rows; ++r)
    for (size_t c = 0; c < cols; ++c)
      d[((c / 2) * rows + r) * 2 + (c & 1)] = f32_to_bf16(W[r * cols + c]);
  return d;
}

// Plain row-major bf16 [rows][cols] (the layout of the shipped bf16 model, qa-v2.2-bf16.amxqa).
std::vector<uint16_t> pack_plain_bf16(const std::vector<float>& W) {
  std::vector<uint16_t> d(W.size());
  for (size_t i = 0; i < W.size(); ++i) d[i] = f32_to_bf16(W[i]);
  return d;
}

std::vector<int8_t> pack_vnni4(const std::vector<int8_t>& Q, size_t rows, size_t cols) {
  std::vector<int8_t> d(rows * cols);
  for (size_t r = 0; r < rows; ++r)
    for (size_t c = 0; c < cols; ++c) d[((c / 4) * rows + r) * 4 + (c & 3)] = Q[r * cols + c];
  return d;
}

std::vector<float> random_floats(std::mt19937& rng, size_t n, float lo = -1.0f, float hi = 1.0f) {
  std::uniform_real_distribution<float> u(lo, hi);
  std::vector<float> v(n);
  for (auto& x : v) x = u(rng);
  return v;
}

// Runs table.matmul on X (m x k, row stride ldx) into Y with row stride ldy
// and a guard band that must stay untouched.
constexpr float kGuard = 12345.0f;
std::vector<float> run_matmul(const Kernels& kt, const WeightView& w, const std::vector<float>& X,
                              size_t ldx, size_t m, size_t ldy) {
  std::vector<float> Y(m * ldy, kGuard);
  kt.matmul(w, X.data(), ldx, m, Y.data(), ldy);
  for (size_t i = 0; i < m; ++i)
    for (size_t j = w.rows; j < ldy; ++j) REQUIRE(Y[i * ldy + j] == kGuard);
  return Y;
}

// The bf16 tile GEMM gives the scalar oracle's bits (canonical_bf16.h: the
// tiles' arithmetic is the definition the oracle spells out), and both are
// within f32 rounding of the exact product of the bf16-rounded operands.
// lay: vnni2 (W is the B operand) or plain (Yᵀ = W · Xᵀ, W is the A operand).
void check_bf16_gemm(const Kernels& kt, size_t m, size_t n, size_t k, std::mt19937& rng,
                     Layout lay = Layout::vnni2) {
  CAPTURE(m);
  CAPTURE(n);
  CAPTURE(k);
  CAPTURE(int(lay));
  const size_t ldx = k + 3, ldy = n + 5;
  std::vector<float> W = random_floats(rng, n * k);
  std::vector<float> X = random_floats(rng, m * ldx);
  std::vector<uint16_t> packed = lay == Layout::plain ? pack_plain_bf16(W) : pack_vnni2(W, n, k);
  WeightView w{DType::bf16, lay, uint32_t(n), uint32_t(k), packed.data(), nullptr};
  const std::vector<float> got = run_matmul(kt, w, X, ldx, m, ldy);
  const std::vector<float> want = run_matmul(kernels_scalar(), w, X, ldx, m, ldy);
  REQUIRE(std::memcmp(got.data(), want.data(), got.size() * sizeof(float)) == 0);
  for (size_t i = 0; i < m; ++i)
    for (size_t j = 0; j < n; ++j) {
      double exact = 0.0, mag = 0.0;  // Σ w x and Σ |w x|, the scale of rounding errors
      for (size_t c = 0; c < k; ++c) {
        const double p = double(bf16_to_f32(f32_to_bf16(W[j * k + c]))) *
                         double(bf16_to_f32(f32_to_bf16(X[i * ldx + c])));
        exact += p;
        mag += std::fabs(p);
      }
      REQUIRE(std::fabs(got[i * ldy + j] - exact) <= 1e-5 * mag + 1e-30);
    }
}

// The plain bf16 tile GEMM (Yᵀ = W · Xᵀ) on M, N and K each below, at and
// across the 16 / 32 tile edges (K odd too); K across the 512-wide activation
// chunk (partial sums go back into the tiles through the transposing buffer),
// even and odd; N across several 32-row blocks; and whole tiles only.
void check_bf16_plain_shapes(const Kernels& kt, std::mt19937& rng) {
  for (size_t m : {16, 17, 31, 32, 33, 64})
    for (size_t n : {1, 15, 16, 17, 33, 48})
      for (size_t k : {1, 2, 31, 32, 33, 66}) check_bf16_gemm(kt, m, n, k, rng, Layout::plain);
  check_bf16_gemm(kt, 17, 70, 1030, rng, Layout::plain);
  check_bf16_gemm(kt, 40, 33, 1031, rng, Layout::plain);
  check_bf16_gemm(kt, 64, 256, 512, rng, Layout::plain);
}

// The int8 tile GEMM vs (a) its documented math evaluated independently in
// double, and (b) the scalar oracle within the activation quantisation error.
void check_int8_gemm(const Kernels& kt, size_t m, size_t n, size_t k, std::mt19937& rng) {
  CAPTURE(m);
  CAPTURE(n);
  CAPTURE(k);
  const size_t ldx = k + 1, ldy = n + 2;
  std::uniform_int_distribution<int> qd(-128, 127);
  std::vector<int8_t> Q(n * k);
  for (auto& q : Q) q = static_cast<int8_t>(qd(rng));
  std::vector<float> scales = random_floats(rng, n, 0.001f, 0.02f);
  std::vector<float> X = random_floats(rng, m * ldx, -3.0f, 3.0f);
  if (m > 3) std::fill(X.begin() + 2 * ldx, X.begin() + 2 * ldx + k, 0.0f);  // an all-zero row
  std::vector<int8_t> packed = pack_vnni4(Q, n, k);
  WeightView w{DType::i8, Layout::vnni4, uint32_t(n), uint32_t(k), packed.data(), scales.data()};
  const std::vector<float> got = run_matmul(kt, w, X, ldx, m, ldy);
  const std::vector<float> oracle = run_matmul(kernels_scalar(), w, X, ldx, m, ldy);
  for (size_t i = 0; i < m; ++i) {
    const float* x = &X[i * ldx];
    float amax = 0.0f;
    for (size_t c = 0; c < k; ++c) amax = std::max(amax, std::fabs(x[c]));
    const float sx = amax / 127.0f;
    for (size_t j = 0; j < n; ++j) {
      int64_t acc = 0;
      double qerr = 0.0;  // bound of the activation quantisation error
      for (size_t c = 0; c < k; ++c) {
        const float q = sx > 0 ? std::nearbyint(std::min(127.0f, std::max(-127.0f, x[c] * (1.0f / sx)))) : 0.0f;
        acc += int64_t(q) * Q[j * k + c];
        qerr += 0.5 * sx * std::abs(Q[j * k + c]);
      }
      const double expect = double(scales[j]) * (double(sx) * double(acc));
      const float g = got[i * ldy + j];
      REQUIRE(std::fabs(g - expect) <= 1e-6 * std::fabs(expect) + 1e-30);
      REQUIRE(std::fabs(g - oracle[i * ldy + j]) <= scales[j] * (qerr * 1.01 + 1e-3));
    }
  }
}

}  // namespace

TEST_SUITE("amx") {

// ---- detection -------------------------------------------------------------

TEST_CASE("amx_status is computed once, is thread-safe and explains itself") {
  const AmxStatus* seen[4] = {};
  std::vector<std::thread> threads;
  for (int i = 0; i < 4; ++i) threads.emplace_back([&seen, i] { seen[i] = &amx_status(); });
  for (auto& t : threads) t.join();
  for (int i = 0; i < 4; ++i) CHECK(seen[i] == &amx_status());
  const AmxStatus& s = amx_status();
  const std::string reason = s.reason;
  REQUIRE(!reason.empty());
  if (s.usable) {
    CHECK(reason == "AMX: used");
  } else {
    CHECK(reason.rfind("AMX: not used: ", 0) == 0);
    CHECK(reason.size() > std::string("AMX: not used: ").size());
  }
#if defined(__x86_64__) || defined(__i386__)
  // A CPU without AMX-TILE (like the AMD EPYC this project is developed on)
  // must fail the very first check, and say so.
  unsigned a = 0, b = 0, c = 0, d = 0;
  const bool has_leaf7 = __get_cpuid_max(0, nullptr) >= 7;
  if (has_leaf7) __cpuid_count(7, 0, a, b, c, d);
  if (!has_leaf7 || !(d & (1u << 24))) {
    CHECK_FALSE(s.usable);
    CHECK(reason.find("AMX-TILE") != std::string::npos);
  }
#endif
}

// ---- emulator: LDTILECFG validation ------------------------------------------

TEST_CASE("emulator: ldtilecfg accepts palette 1 and palette 0 returns to init state") {
  EmuReset reset;
  CHECK_FALSE(emu::tiles_configured());
  emu::TileConfig c = full_config();
  REQUIRE(emu::ldtilecfg(&c) == emu::TileFault::none);
  CHECK(emu::tiles_configured());
  emu::TileConfig back{};
  REQUIRE(emu::sttilecfg(&back) == emu::TileFault::none);
  CHECK(std::memcmp(&back, &c, sizeof c) == 0);
  emu::TileConfig zero{};
  REQUIRE(emu::ldtilecfg(&zero) == emu::TileFault::none);
  CHECK_FALSE(emu::tiles_configured());
  CHECK(emu::tile_fault() == emu::TileFault::none);
}

TEST_CASE("emulator: ldtilecfg faults (#GP) leave the previous state intact") {
  EmuReset reset;
  const emu::TileConfig good = full_config();
  REQUIRE(emu::ldtilecfg(&good) == emu::TileFault::none);
  alignas(64) uint8_t data[16][64];
  for (int r = 0; r < 16; ++r)
    for (int c = 0; c < 64; ++c) data[r][c] = uint8_t(r * 64 + c);
  REQUIRE(emu::tileloadd(3, data, 64) == emu::TileFault::none);

  struct Case {
    const char* what;
    void (*mutate)(emu::TileConfig&);
    emu::TileFault fault;
  };
  const Case cases[] = {
      {"palette 2", [](emu::TileConfig& c) { c.palette_id = 2; }, emu::TileFault::bad_palette},
      {"reserved byte", [](emu::TileConfig& c) { c.reserved[5] = 1; }, emu::TileFault::reserved_nonzero},
      {"colsb 65", [](emu::TileConfig& c) { c.colsb[2] = 65; }, emu::TileFault::colsb_too_large},
      {"rows 17", [](emu::TileConfig& c) { c.rows[7] = 17; }, emu::TileFault::rows_too_large},
      {"rows without colsb", [](emu::TileConfig& c) { c.colsb[1] = 0; }, emu::TileFault::rows_colsb_mismatch},
      {"colsb without rows", [](emu::TileConfig& c) { c.rows[4] = 0; }, emu::TileFault::rows_colsb_mismatch},
      {"tile 8 colsb", [](emu::TileConfig& c) { c.colsb[8] = 4; }, emu::TileFault::reserved_nonzero},
      {"tile 15 rows", [](emu::TileConfig& c) { c.rows[15] = 1; }, emu::TileFault::reserved_nonzero},
  };
  for (const Case& k : cases) {
    CAPTURE(k.what);
    emu::TileConfig bad = good;
    k.mutate(bad);
    emu::clear_tile_fault();
    CHECK(emu::ldtilecfg(&bad) == k.fault);
    CHECK(emu::tile_fault() == k.fault);
    CHECK(std::string(emu::tile_fault_name(k.fault)).find('#') == 0);
    // The fault changed nothing: same config, same tile data.
    emu::TileConfig now{};
    emu::sttilecfg(&now);
    CHECK(std::memcmp(&now, &good, sizeof now) == 0);
    alignas(64) uint8_t out[16][64] = {};
    REQUIRE(emu::tilestored(3, out, 64) == emu::TileFault::none);
    CHECK(std::memcmp(out, data, sizeof out) == 0);
  }
  CHECK(emu::ldtilecfg(nullptr) == emu::TileFault::null_pointer);
}

TEST_CASE("emulator: tile instructions before ldtilecfg are #UD and bad tiles are rejected") {
  EmuReset reset;
  alignas(64) uint8_t buf[16][64] = {};
  CHECK(emu::tileloadd(0, buf, 64) == emu::TileFault::not_configured);
  CHECK(emu::tilestored(0, buf, 64) == emu::TileFault::not_configured);
  CHECK(emu::tilezero(0) == emu::TileFault::not_configured);
  CHECK(emu::tdpbf16ps(0, 1, 2) == emu::TileFault::not_configured);
  CHECK(emu::tdpbssd(0, 1, 2) == emu::TileFault::not_configured);
  CHECK(emu::tile_fault() == emu::TileFault::not_configured);  // sticky: the first one
  const emu::TileConfig c = full_config();
  REQUIRE(emu::ldtilecfg(&c) == emu::TileFault::none);
  CHECK(emu::tileloadd(8, buf, 64) == emu::TileFault::bad_tile_index);
  CHECK(emu::tilezero(-1) == emu::TileFault::bad_tile_index);
  CHECK(emu::tileloadd(0, nullptr, 64) == emu::TileFault::null_pointer);
  CHECK(emu::tdpbf16ps(0, 0, 1) == emu::TileFault::same_register);
  CHECK(emu::tdpbssd(0, 1, 1) == emu::TileFault::same_register);
}

TEST_CASE("emulator: tdp shape checks follow the SDM (#UD)") {
  EmuReset reset;
  emu::TileConfig c{};
  c.palette_id = 1;
  // C 4 x 8 fp32 (colsb 32), A 4 x 6 pairs (colsb 24), B 6 x 8 pairs (colsb 32).
  c.rows[0] = 4; c.colsb[0] = 32;
  c.rows[1] = 4; c.colsb[1] = 24;
  c.rows[2] = 6; c.colsb[2] = 32;
  c.rows[3] = 5; c.colsb[3] = 32;  // wrong K for A
  c.rows[4] = 3; c.colsb[4] = 24;  // wrong M for C
  c.rows[5] = 6; c.colsb[5] = 30;  // colsb not a multiple of 4
  REQUIRE(emu::ldtilecfg(&c) == emu::TileFault::none);
  CHECK(emu::tdpbf16ps(0, 1, 2) == emu::TileFault::none);
  CHECK(emu::tdpbf16ps(0, 1, 3) == emu::TileFault::shape_mismatch);
  CHECK(emu::tdpbf16ps(0, 4, 2) == emu::TileFault::shape_mismatch);
  CHECK(emu::tdpbssd(0, 1, 5) == emu::TileFault::shape_mismatch);
}

// ---- emulator: data movement ---------------------------------------------------

TEST_CASE("emulator: tileloadd/tilestored round-trip with strides, partial tiles zero-filled") {
  EmuReset reset;
  emu::TileConfig c{};
  c.palette_id = 1;
  c.rows[0] = 16; c.colsb[0] = 64;
  c.rows[1] = 5;  c.colsb[1] = 12;
  REQUIRE(emu::ldtilecfg(&c) == emu::TileFault::none);
  const size_t stride = 100;  // not a multiple of 64: rows are unaligned
  std::vector<uint8_t> src(16 * stride), dst(16 * stride, 0xEE);
  for (size_t i = 0; i < src.size(); ++i) src[i] = uint8_t(i * 7 + 1);
  REQUIRE(emu::tileloadd(0, src.data(), stride) == emu::TileFault::none);
  REQUIRE(emu::tilestored(0, dst.data(), stride) == emu::TileFault::none);
  for (size_t r = 0; r < 16; ++r) {
    CHECK(std::memcmp(&dst[r * stride], &src[r * stride], 64) == 0);
    for (size_t b = 64; b < stride; ++b) CHECK(dst[r * stride + b] == 0xEE);  // untouched gap
  }
  // A 5 x 12-byte tile loads and stores only its own shape.
  REQUIRE(emu::tileloadd(1, src.data() + 3, stride) == emu::TileFault::none);
  std::vector<uint8_t> small(5 * 20, 0xAB);
  REQUIRE(emu::tilestored(1, small.data(), 20) == emu::TileFault::none);
  for (size_t r = 0; r < 5; ++r) {
    CHECK(std::memcmp(&small[r * 20], &src[3 + r * stride], 12) == 0);
    for (size_t b = 12; b < 20; ++b) CHECK(small[r * 20 + b] == 0xAB);
  }
  // tilezero clears; a fresh ldtilecfg also clears every tile.
  REQUIRE(emu::tilezero(0) == emu::TileFault::none);
  REQUIRE(emu::tilestored(0, dst.data(), stride) == emu::TileFault::none);
  for (size_t r = 0; r < 16; ++r)
    for (size_t b = 0; b < 64; ++b) CHECK(dst[r * stride + b] == 0);
  REQUIRE(emu::tileloadd(1, src.data(), stride) == emu::TileFault::none);
  REQUIRE(emu::ldtilecfg(&c) == emu::TileFault::none);
  REQUIRE(emu::tilestored(1, small.data(), 20) == emu::TileFault::none);
  for (size_t r = 0; r < 5; ++r)
    for (size_t b = 0; b < 12; ++b) CHECK(small[r * 20 + b] == 0);
}

TEST_CASE("emulator: start_row restarts a load and is reset after it") {
  EmuReset reset;
  emu::TileConfig c = full_config();
  REQUIRE(emu::ldtilecfg(&c) == emu::TileFault::none);
  alignas(64) uint8_t ones[16][64], twos[16][64], out[16][64];
  std::memset(ones, 1, sizeof ones);
  std::memset(twos, 2, sizeof twos);
  REQUIRE(emu::tileloadd(2, ones, 64) == emu::TileFault::none);
  c.start_row = 10;  // as if a load had faulted at row 10: loading resumes there
  REQUIRE(emu::ldtilecfg(&c) == emu::TileFault::none);  // note: this zeroes tiles
  REQUIRE(emu::tileloadd(2, twos, 64) == emu::TileFault::none);
  REQUIRE(emu::tilestored(2, out, 64) == emu::TileFault::none);
  for (int r = 0; r < 16; ++r) CHECK(out[r][0] == (r < 10 ? 0 : 2));
  emu::TileConfig now{};
  emu::sttilecfg(&now);
  CHECK(now.start_row == 0);
}

// ---- emulator: arithmetic ---------------------------------------------------

TEST_CASE("emulator: tdpbf16ps matches an independent reference of the SDM numerics") {
  EmuReset reset;
  const emu::TileConfig c = full_config();
  REQUIRE(emu::ldtilecfg(&c) == emu::TileFault::none);
  std::mt19937 rng(7);
  // Values are bf16 with small exponents, so every partial sum below is exact
  // in double and rounding it to float once is the single RNE rounding.
  std::uniform_int_distribution<int> mant(-255, 255), ex(-6, 6);
  auto rnd_bf16 = [&] { return f32_to_bf16(std::ldexp(float(mant(rng)), ex(rng))); };
  alignas(64) uint16_t A[16][32], B[16][32];
  alignas(64) float C0[16][16], C[16][16];
  for (auto& row : A) for (auto& v : row) v = rnd_bf16();
  for (auto& row : B) for (auto& v : row) v = rnd_bf16();
  for (auto& row : C0) for (auto& v : row) v = bf16_to_f32(rnd_bf16());
  REQUIRE(emu::tileloadd(0, C0, 64) == emu::TileFault::none);
  REQUIRE(emu::tileloadd(1, A, 64) == emu::TileFault::none);
  REQUIRE(emu::tileloadd(2, B, 64) == emu::TileFault::none);
  REQUIRE(emu::tdpbf16ps(0, 1, 2) == emu::TileFault::none);
  REQUIRE(emu::tilestored(0, C, 64) == emu::TileFault::none);
  for (int m = 0; m < 16; ++m)
    for (int n = 0; n < 16; ++n) {
      float even = 0.0f, odd = 0.0f;
      double exact = C0[m][n];
      for (int k = 0; k < 16; ++k) {
        const double pe = double(bf16_to_f32(A[m][2 * k])) * bf16_to_f32(B[k][2 * n]);
        const double po = double(bf16_to_f32(A[m][2 * k + 1])) * bf16_to_f32(B[k][2 * n + 1]);
        even = float(double(even) + pe);
        odd = float(double(odd) + po);
        exact += pe + po;
      }
      const float ref = float(double(C0[m][n]) + double(float(double(even) + double(odd))));
      CHECK(C[m][n] == ref);
      CHECK(std::fabs(C[m][n] - exact) <= 1e-5 * (std::fabs(exact) + 1.0));  // sanity
    }
}

TEST_CASE("emulator: tdpbf16ps keeps even and odd products apart (SDM order), DAZ and FTZ") {
  EmuReset reset;
  const emu::TileConfig c = full_config();
  REQUIRE(emu::ldtilecfg(&c) == emu::TileFault::none);
  alignas(64) uint16_t A[16][32] = {}, B[16][32] = {};
  alignas(64) float C[16][16] = {};
  const uint16_t one = f32_to_bf16(1.0f), big = f32_to_bf16(16777216.0f);  // 2^24
  const uint16_t neg_big = f32_to_bf16(-16777216.0f);
  // C[0][0]: pairs (2^24, 1) and (-2^24, 1) against (1, 1). Even lane:
  // 2^24 - 2^24 = 0, odd lane 1 + 1 = 2, total 2. A single running sum in
  // Intrinsics-Guide order would give 1 (2^24 + 1 rounds to 2^24).
  A[0][0] = big; A[0][1] = one; A[0][2] = neg_big; A[0][3] = one;
  B[0][0] = one; B[0][1] = one; B[1][0] = one; B[1][1] = one;
  // C[1][0]: a denormal bf16 input reads as zero (DAZ), though x 2^100 it
  // would be a normal 2^-33.
  A[1][0] = 0x0001;
  // C[2][0]: 2^-70 x 2^-70 = 2^-140 is denormal in fp32: flushed (FTZ).
  A[2][0] = f32_to_bf16(std::ldexp(1.0f, -70));
  B[0][0] = one;
  REQUIRE(emu::tileloadd(1, A, 64) == emu::TileFault::none);
  REQUIRE(emu::tileloadd(2, B, 64) == emu::TileFault::none);
  REQUIRE(emu::tilezero(0) == emu::TileFault::none);
  REQUIRE(emu::tdpbf16ps(0, 1, 2) == emu::TileFault::none);
  REQUIRE(emu::tilestored(0, C, 64) == emu::TileFault::none);
  CHECK(C[0][0] == 2.0f);
  CHECK(C[1][0] == 0.0f);
  CHECK(C[2][0] == std::ldexp(1.0f, -70));  // x 1: still normal
  // Now with B = 2^100 and 2^-70 in column 1.
  B[0][2] = f32_to_bf16(std::ldexp(1.0f, 100));
  REQUIRE(emu::tileloadd(2, B, 64) == emu::TileFault::none);
  REQUIRE(emu::tilezero(0) == emu::TileFault::none);
  REQUIRE(emu::tdpbf16ps(0, 1, 2) == emu::TileFault::none);
  REQUIRE(emu::tilestored(0, C, 64) == emu::TileFault::none);
  CHECK(C[1][1] == 0.0f);                         // denormal x 2^100: DAZ
  CHECK(C[2][1] == std::ldexp(1.0f, 30));         // 2^-70 x 2^100
  B[0][2] = f32_to_bf16(std::ldexp(1.0f, -70));
  REQUIRE(emu::tileloadd(2, B, 64) == emu::TileFault::none);
  REQUIRE(emu::tilezero(0) == emu::TileFault::none);
  REQUIRE(emu::tdpbf16ps(0, 1, 2) == emu::TileFault::none);
  REQUIRE(emu::tilestored(0, C, 64) == emu::TileFault::none);
  CHECK(C[2][1] == 0.0f);                         // 2^-140: FTZ
  CHECK_FALSE(std::signbit(C[2][1]));
}

TEST_CASE("emulator: tdpbssd is exact int8 x int8 -> int32, wrapping like hardware") {
  EmuReset reset;
  const emu::TileConfig c = full_config();
  REQUIRE(emu::ldtilecfg(&c) == emu::TileFault::none);
  std::mt19937 rng(11);
  std::uniform_int_distribution<int> d(-128, 127);
  alignas(64) int8_t A[16][64], B[16][64];
  alignas(64) int32_t C0[16][16], C[16][16];
  for (auto& row : A) for (auto& v : row) v = int8_t(d(rng));
  for (auto& row : B) for (auto& v : row) v = int8_t(d(rng));
  for (auto& row : C0) for (auto& v : row) v = d(rng) * 1000;
  A[0][0] = -128; B[0][0] = -128;  // the extreme product
  C0[5][5] = INT32_MAX;            // wraps
  REQUIRE(emu::tileloadd(0, C0, 64) == emu::TileFault::none);
  REQUIRE(emu::tileloadd(1, A, 64) == emu::TileFault::none);
  REQUIRE(emu::tileloadd(2, B, 64) == emu::TileFault::none);
  REQUIRE(emu::tdpbssd(0, 1, 2) == emu::TileFault::none);
  REQUIRE(emu::tilestored(0, C, 64) == emu::TileFault::none);
  for (int m = 0; m < 16; ++m)
    for (int n = 0; n < 16; ++n) {
      int64_t acc = C0[m][n];
      for (int k = 0; k < 16; ++k)
        for (int i = 0; i < 4; ++i) acc += int64_t(A[m][4 * k + i]) * B[k][4 * n + i];
      CHECK(C[m][n] == int32_t(uint32_t(uint64_t(acc))));
    }
}

// ---- tile GEMMs --------------------------------------------------------------

TEST_CASE("amx_emulated: bf16 vnni2 matmul matches scalar on ragged shapes") {
  EmuReset reset;
  const Kernels* kt = kernels_amx_emulated();
  REQUIRE(kt != nullptr);
  std::mt19937 rng(1);
  for (size_t m : {16, 17, 31, 64})
    for (size_t n : {1, 15, 16, 33})
      for (size_t k : {2, 30, 32, 66}) check_bf16_gemm(*kt, m, n, k, rng);
  // K beyond one 512-wide activation chunk, N beyond one 32-wide block.
  check_bf16_gemm(*kt, 17, 70, 1030, rng);
  CHECK(emu::tile_fault() == emu::TileFault::none);
}

TEST_CASE("amx_emulated: bf16 plain matmul (Yt = W Xt, W as the A tile) matches scalar on ragged shapes") {
  EmuReset reset;
  const Kernels* kt = kernels_amx_emulated();
  REQUIRE(kt != nullptr);
  std::mt19937 rng(6);
  check_bf16_plain_shapes(*kt, rng);
  CHECK(emu::tile_fault() == emu::TileFault::none);
}

TEST_CASE("amx_emulated: plain bf16 prefill (m >= 16) runs on tiles, m < 16 stays on scalar") {
  EmuReset reset;
  const Kernels& kt = *kernels_amx_emulated();
  std::mt19937 rng(8);
  const size_t n = 24, k = 40;
  std::vector<float> W = random_floats(rng, n * k);
  std::vector<uint16_t> plain = pack_plain_bf16(W);
  std::vector<float> X = random_floats(rng, 16 * k);
  const WeightView wp{DType::bf16, Layout::plain, n, k, plain.data(), nullptr};
  // m = 15 and m = 1: the scalar oracle, bit for bit, and no tile touched.
  CHECK(run_matmul(kt, wp, X, k, 15, n) == run_matmul(kernels_scalar(), wp, X, k, 15, n));
  CHECK(run_matmul(kt, wp, X, k, 1, n) == run_matmul(kernels_scalar(), wp, X, k, 1, n));
  CHECK_FALSE(emu::tiles_configured());
  // m = 16: tiles (the kernel configured them), and still the oracle's bits.
  const std::vector<float> got = run_matmul(kt, wp, X, k, 16, n);
  CHECK(emu::tiles_configured());
  CHECK(got == run_matmul(kernels_scalar(), wp, X, k, 16, n));
  CHECK(emu::tile_fault() == emu::TileFault::none);
}

TEST_CASE("amx_emulated: i8 vnni4 matmul matches its quantised math and scalar") {
  EmuReset reset;
  const Kernels* kt = kernels_amx_emulated();
  REQUIRE(kt != nullptr);
  std::mt19937 rng(2);
  for (size_t m : {16, 17, 31, 64})
    for (size_t n : {1, 15, 16, 33})
      for (size_t k : {4, 60, 64, 132}) check_int8_gemm(*kt, m, n, k, rng);
  check_int8_gemm(*kt, 33, 40, 1100, rng);  // K beyond one 1024-wide chunk
  CHECK(emu::tile_fault() == emu::TileFault::none);
}

TEST_CASE("amx_emulated: everything else is delegated to scalar, bit for bit") {
  EmuReset reset;
  const Kernels& kt = *kernels_amx_emulated();
  const Kernels& sc = kernels_scalar();
  std::mt19937 rng(3);
  const size_t n = 24, k = 40;
  std::vector<float> W = random_floats(rng, n * k);
  std::vector<uint16_t> v2 = pack_vnni2(W, n, k);
  std::vector<float> X = random_floats(rng, 20 * k);
  const WeightView wf{DType::f32, Layout::plain, n, k, W.data(), nullptr};
  const WeightView wb{DType::bf16, Layout::vnni2, n, k, v2.data(), nullptr};
  // f32 weights at m >= 16, and bf16 at m < 16, are not tile work.
  CHECK(run_matmul(kt, wf, X, k, 20, n) == run_matmul(sc, wf, X, k, 20, n));
  CHECK(run_matmul(kt, wb, X, k, 15, n) == run_matmul(sc, wb, X, k, 15, n));
  std::vector<float> y1(n), y2(n);
  kt.matvec(wb, X.data(), y1.data());
  sc.matvec(wb, X.data(), y2.data());
  CHECK(y1 == y2);
  const uint32_t ids[3] = {0, 7, 23};
  float o1[3], o2[3];
  kt.rows_dot(wb, ids, 3, X.data(), o1);
  sc.rows_dot(wb, ids, 3, X.data(), o2);
  CHECK(std::memcmp(o1, o2, sizeof o1) == 0);
  std::vector<float> C1(20 * n, 1.0f), C2(20 * n, 1.0f);
  kt.sgemm(false, true, 20, n, k, 0.5f, X.data(), k, W.data(), k, 2.0f, C1.data(), n);
  sc.sgemm(false, true, 20, n, k, 0.5f, X.data(), k, W.data(), k, 2.0f, C2.data(), n);
  CHECK(C1 == C2);
}

TEST_CASE("amx_emulated: kernels survive foreign tile state and amx_release_thread_state") {
  EmuReset reset;
  std::mt19937 rng(4);
  check_bf16_gemm(*kernels_amx_emulated(), 16, 16, 32, rng);
  CHECK(emu::tiles_configured());
  amx_release_thread_state();
  CHECK_FALSE(emu::tiles_configured());
  // A caller loading its own configuration must not break the kernels.
  emu::TileConfig odd{};
  odd.palette_id = 1;
  odd.rows[0] = 2;
  odd.colsb[0] = 8;
  REQUIRE(emu::ldtilecfg(&odd) == emu::TileFault::none);
  check_bf16_gemm(*kernels_amx_emulated(), 16, 16, 32, rng);
  check_bf16_gemm(*kernels_amx_emulated(), 16, 16, 32, rng, Layout::plain);
  check_int8_gemm(*kernels_amx_emulated(), 16, 16, 64, rng);
  CHECK(emu::tile_fault() == emu::TileFault::none);
}

TEST_CASE("amx: the real table is safe everywhere and correct where AMX is usable") {
  const Kernels* kt = kernels_amx();
#if defined(__x86_64__)
  REQUIRE(kt != nullptr);
#endif
  if (!kt) return;
  std::mt19937 rng(5);
  if (!amx_status().usable) {
    // No AMX: the table degrades to the scalar oracle instead of faulting.
    const size_t n = 20, k = 64;
    std::vector<float> W = random_floats(rng, n * k);
    std::vector<uint16_t> v2 = pack_vnni2(W, n, k);
    std::vector<float> X = random_floats(rng, 32 * k);
    const WeightView wb{DType::bf16, Layout::vnni2, n, k, v2.data(), nullptr};
    CHECK(run_matmul(*kt, wb, X, k, 32, n) == run_matmul(kernels_scalar(), wb, X, k, 32, n));
    std::vector<uint16_t> plain = pack_plain_bf16(W);
    const WeightView wp{DType::bf16, Layout::plain, n, k, plain.data(), nullptr};
    CHECK(run_matmul(*kt, wp, X, k, 32, n) == run_matmul(kernels_scalar(), wp, X, k, 32, n));
    amx_release_thread_state();  // a no-op here, and must not fault
    return;
  }
  for (size_t m : {16, 17, 31, 64})
    for (size_t n : {1, 15, 16, 33})
      for (size_t k : {2, 30, 32, 66}) check_bf16_gemm(*kt, m, n, k, rng);
  check_bf16_gemm(*kt, 17, 70, 1030, rng);
  check_bf16_plain_shapes(*kt, rng);
  for (size_t m : {16, 17, 31, 64})
    for (size_t n : {1, 15, 16, 33})
      for (size_t k : {4, 60, 64, 132}) check_int8_gemm(*kt, m, n, k, rng);
  check_int8_gemm(*kt, 33, 40, 1100, rng);
  amx_release_thread_state();
  check_bf16_gemm(*kt, 16, 16, 32, rng);  // reconfigures after a release
  amx_release_thread_state();
}

}  // TEST_SUITE("amx")
