// canonical_exp.h — exp(t) for t <= 0 (softmax after subtracting the max) as
// a fixed sequence of IEEE operations, so that the scalar table and each SIMD
// table compute the same bits: k = rint(t·log2e) (round to nearest even),
// r = t − k·ln2 in two fused steps (Cody–Waite), e^r by a degree-6 Taylor
// polynomial in Horner form with fused multiply-adds (|r| <= ln2/2: relative
// error below 2e-7), and 2^k added to the exponent bits (never a multiply,
// which a compiler could fuse with a following add). t < kExpMin gives 0:
// e^-87 is 1.6e-38, and the result then stays a normal float.
// Each SIMD file restates these steps with its intrinsics; the constants
// live here once.
#pragma once

namespace amxqa::canonical_exp {

constexpr float kMin = -87.0f;
constexpr float kLog2e = 1.44269504088896341f;
constexpr float kLn2Hi = 0.693145751953125f;         // ln 2 to 16 bits: k·kLn2Hi is exact
constexpr float kLn2Lo = 1.42860682030941723212e-6f; // ln 2 − kLn2Hi
// 1/6!, 1/5!, ..., 1/1!, 1/0!: Horner from the highest power.
constexpr float kC6 = 1.0f / 720.0f, kC5 = 1.0f / 120.0f, kC4 = 1.0f / 24.0f,
                kC3 = 1.0f / 6.0f, kC2 = 0.5f, kC1 = 1.0f, kC0 = 1.0f;

}  // namespace amxqa::canonical_exp
