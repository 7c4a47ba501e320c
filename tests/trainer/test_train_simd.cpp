// test_train_simd.cpp — each vector body of the trainer's non-GEMM loops
// (train_simd_isa.h: AVX2+FMA, AVX-512) against the portable body on random
// rows, lengths with and without a tail (n not a multiple of 8 or 16), within
// float rounding; and no body writes past its row. A table whose ISA this CPU
// lacks is skipped (the dispatcher never picks it here either).
#include <doctest/doctest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "model/train_simd_isa.h"

using amxqa::train::simd::Bodies;

namespace {

struct Table {
  const char* name;
  const Bodies* bodies;
};

std::vector<Table> vector_tables() {
  std::vector<Table> t;
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
    t.push_back({"avx2", &amxqa::train::simd::avx2_bodies()});
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("fma"))
    t.push_back({"avx512", &amxqa::train::simd::avx512_bodies()});
  if (t.empty()) MESSAGE("this CPU has neither AVX2+FMA nor AVX-512: nothing to compare");
  return t;
}

const Bodies& scalar() { return amxqa::train::simd::scalar_bodies(); }

const size_t kLengths[] = {1, 3, 7, 8, 9, 15, 16, 17, 31, 33, 64, 100, 257};

// A row of n values in [lo, hi) followed by kGuard sentinels that no body may touch.
constexpr size_t kGuard = 16;
constexpr float kSentinel = 12345.f;
std::vector<float> row(std::mt19937& g, size_t n, float lo = -1.f, float hi = 1.f) {
  std::uniform_real_distribution<float> u(lo, hi);
  std::vector<float> v(n + kGuard, kSentinel);
  for (size_t i = 0; i < n; ++i) v[i] = u(g);
  return v;
}

// Same values within `tol` relative to max(|want|, floor); sentinels unchanged.
void check_row(const std::vector<float>& got, const std::vector<float>& want, size_t n,
               double tol, double floor = 1.0) {
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < n; ++i)
    CHECK_MESSAGE(std::fabs(double(got[i]) - want[i]) <= tol * std::fmax(std::fabs(want[i]), floor),
                  "i=" << i << " got " << got[i] << " want " << want[i]);
  for (size_t i = n; i < got.size(); ++i) CHECK(got[i] == kSentinel);
}

}  // namespace

TEST_SUITE("unit") {
  TEST_CASE("train_simd: relu2_backward") {
    std::mt19937 g(1);
    for (const Table& t : vector_tables())
      for (size_t n : kLengths) {
        CAPTURE(std::string(t.name));
        CAPTURE(n);
        const std::vector<float> pre = row(g, n), dact = row(g, n);
        std::vector<float> want = dact, got = dact;
        scalar().relu2_backward(pre.data(), want.data(), n);
        t.bodies->relu2_backward(pre.data(), got.data(), n);
        check_row(got, want, n, 1e-6);
      }
  }

  TEST_CASE("train_simd: softmax, including arguments that underflow") {
    std::mt19937 g(2);
    for (const Table& t : vector_tables())
      for (size_t n : kLengths)
        for (float spread : {4.f, 120.f}) {
          CAPTURE(std::string(t.name));
          CAPTURE(n);
          CAPTURE(spread);
          const std::vector<float> x = row(g, n, -spread, 3.f);
          std::vector<float> want = x, got = x;
          scalar().softmax(want.data(), n);
          t.bodies->softmax(got.data(), n);
          // exp within a few ulp and the sum in another order: 2e-6 relative;
          // values near e^-100 are subnormal, hence an absolute floor of 2e-36.
          check_row(got, want, n, 2e-6, 1e-30);
        }
  }

  TEST_CASE("train_simd: softmax_backward") {
    std::mt19937 g(3);
    for (const Table& t : vector_tables())
      for (size_t n : kLengths) {
        CAPTURE(std::string(t.name));
        CAPTURE(n);
        std::vector<float> p = row(g, n, -3.f, 3.f);
        scalar().softmax(p.data(), n);
        const std::vector<float> ds = row(g, n);
        std::vector<float> want = ds, got = ds;
        scalar().softmax_backward(p.data(), want.data(), n, 0.125f);
        t.bodies->softmax_backward(p.data(), got.data(), n, 0.125f);
        check_row(got, want, n, 1e-5, 1e-3);
      }
  }

  TEST_CASE("train_simd: lin_step_backward, with and without the previous state") {
    std::mt19937 g(4);
    const size_t head_dims[] = {5, 8, 12, 16, 20, 32, 64, 72};
    for (const Table& t : vector_tables())
      for (size_t hd : head_dims)
        for (size_t dk : {size_t(1), size_t(5), size_t(16)})
          for (bool prev : {false, true}) {
            CAPTURE(std::string(t.name));
            CAPTURE(hd);
            CAPTURE(dk);
            CAPTURE(prev);
            const std::vector<float> S = row(g, dk * hd), Sprev = row(g, dk * hd);
            const std::vector<float> q = row(g, dk), k = row(g, dk), v = row(g, hd), dO = row(g, hd);
            const std::vector<float> dS = row(g, dk * hd);
            std::vector<float> dS_want = dS, dS_got = dS;
            std::vector<float> dq_want(dk + kGuard, kSentinel), dq_got = dq_want;
            std::vector<float> dk_want(dk + kGuard, kSentinel), dk_got = dk_want;
            std::vector<float> dv_want(hd + kGuard, kSentinel), dv_got = dv_want;
            const float* sp = prev ? Sprev.data() : nullptr;
            const float da_want = scalar().lin_step_backward(
                dS_want.data(), S.data(), sp, q.data(), k.data(), v.data(), dO.data(), 0.9f, 0.5f,
                dk, hd, dq_want.data(), dk_want.data(), dv_want.data());
            const float da_got = t.bodies->lin_step_backward(
                dS_got.data(), S.data(), sp, q.data(), k.data(), v.data(), dO.data(), 0.9f, 0.5f,
                dk, hd, dq_got.data(), dk_got.data(), dv_got.data());
            check_row(dS_got, dS_want, dk * hd, 1e-6);
            check_row(dq_got, dq_want, dk, 1e-5);
            check_row(dk_got, dk_want, dk, 1e-5);
            check_row(dv_got, dv_want, hd, 1e-5);
            if (!prev) CHECK(da_got == 0.f);
            CHECK(std::fabs(double(da_got) - da_want) <= 1e-5 * std::fmax(std::fabs(da_want), 1.0));
          }
  }

  TEST_CASE("train_simd: adamw") {
    std::mt19937 g(5);
    for (const Table& t : vector_tables())
      for (size_t n : kLengths) {
        CAPTURE(std::string(t.name));
        CAPTURE(n);
        const std::vector<float> w = row(g, n), m = row(g, n, -0.01f, 0.01f),
                                 v = row(g, n, 0.f, 1e-4f), grad = row(g, n);
        std::vector<float> w1 = w, m1 = m, v1 = v, w2 = w, m2 = m, v2 = v;
        scalar().adamw(w1.data(), m1.data(), v1.data(), grad.data(), n, 0.5f, 0.9f, 0.95f, 1e-3f,
                       0.999f, 0.19f, 0.0975f, 1e-8f);
        t.bodies->adamw(w2.data(), m2.data(), v2.data(), grad.data(), n, 0.5f, 0.9f, 0.95f, 1e-3f,
                        0.999f, 0.19f, 0.0975f, 1e-8f);
        check_row(w2, w1, n, 1e-6);
        check_row(m2, m1, n, 1e-6, 0.05);  // b1·m and (1−b1)·g may cancel: relative to the terms
        check_row(v2, v1, n, 1e-6, 1e-8);
      }
  }

  TEST_CASE("train_simd: rmsnorm_backward, with and without gain and gain gradient") {
    std::mt19937 g(6);
    for (const Table& t : vector_tables())
      for (size_t n : kLengths)
        for (bool gain : {false, true})
          for (bool dgain : {false, true}) {
            CAPTURE(std::string(t.name));
            CAPTURE(n);
            CAPTURE(gain);
            CAPTURE(dgain);
            const std::vector<float> x = row(g, n), gw = row(g, n, 0.5f, 1.5f), dy = row(g, n);
            double ss = 0;
            for (size_t i = 0; i < n; ++i) ss += double(x[i]) * x[i];
            const float inv = float(1.0 / std::sqrt(ss / double(n) + 1e-6));
            const std::vector<float> dx = row(g, n), dg = row(g, n);
            std::vector<float> dx1 = dx, dx2 = dx, dg1 = dg, dg2 = dg;
            const float* gp = gain ? gw.data() : nullptr;
            scalar().rmsnorm_backward(x.data(), gp, inv, dy.data(), n, dx1.data(),
                                      dgain ? dg1.data() : nullptr);
            t.bodies->rmsnorm_backward(x.data(), gp, inv, dy.data(), n, dx2.data(),
                                       dgain ? dg2.data() : nullptr);
            check_row(dx2, dx1, n, 1e-5);
            check_row(dg2, dg1, n, 1e-6);
          }
  }

  TEST_CASE("train_simd: sum_squares") {
    std::mt19937 g(7);
    for (const Table& t : vector_tables())
      for (size_t n : kLengths) {
        CAPTURE(std::string(t.name));
        CAPTURE(n);
        const std::vector<float> x = row(g, n);  // its sentinels would add 1.5e8 each if read
        const double want = scalar().sum_squares(x.data(), n);
        const double got = t.bodies->sum_squares(x.data(), n);
        CHECK(std::fabs(got - want) <= 1e-12 * std::fmax(want, 1.0));
      }
  }
}
