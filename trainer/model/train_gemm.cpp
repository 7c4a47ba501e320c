// train_gemm.cpp — the trainer's one door to matrix products: the runtime's
// sgemm (AVX-512 when the CPU has it, else AVX2+FMA, else the scalar oracle),
// chosen once under the AMXQA_MAX_ISA cap, or a bf16 variant when the stage
// computes in bf16: AMX tiles where the CPU and OS allow them (their peak is
// several times any vector unit's), else AVX512-BF16.
#include <atomic>
#include <cstring>
#include <map>
#include <tuple>
#include <vector>

#include "amxqa.h"
#include "cpu/isa_select.h"
#include "kernels/training/sgemm_bf16.h"
#include "model/train_impl.h"

namespace amxqa::train {

// The best ISA this CPU runs under the AMXQA_MAX_ISA cap, read once: the
// runtime's own choice (cpu/isa_select.h), so AMXQA_MAX_ISA=avx2 measures the
// trainer's AVX2 speed on an AVX-512 or AMX machine.
amxqa_isa train_isa() {
  static const amxqa_isa isa = [] {
    amxqa_isa best = AMXQA_ISA_SCALAR;
    resolve_isa(AMXQA_ISA_AUTO, max_isa_from_env(nullptr, 0, nullptr), &best);
    return best;
  }();
  return isa;
}

const Kernels& train_kernels() {
  static const Kernels* table = [] {
    const Kernels* t = nullptr;
    // f32 products on AMX machines run on AVX-512 (tiles are bf16/int8).
    if (train_isa() >= AMXQA_ISA_AVX512) t = kernels_avx512();
    if (!t && train_isa() >= AMXQA_ISA_AVX2) t = kernels_avx2();
    return t ? t : &kernels_scalar();
  }();
  return *table;
}

namespace {
bool g_bf16 = false;
TileProduct g_tiles = nullptr;  // the tile product while bf16 compute runs on tiles
// Bumped by every writer of Param::w (weights_changed()): the weight packs
// below are valid while it is unchanged.
std::atomic<uint64_t> g_weights_gen{1};

// Per thread (each StepWorkers replica runs on its own thread): the tile B
// operand of every weight matrix the products used, packed once per
// generation of the weights (once per optimizer step) and refreshed in
// place, so a step allocates nothing once the first has run. Keyed by the
// matrix's address and the product's view of it (forward Wᵀ, backward W).
struct WeightPacks {
  struct Key {
    const float* w;
    size_t k, n, ld;
    bool trans;
    bool operator<(const Key& o) const {
      return std::tie(w, k, n, ld, trans) < std::tie(o.w, o.k, o.n, o.ld, o.trans);
    }
  };
  struct Pack {
    uint64_t gen = 0;
    std::vector<uint32_t> pairs;
  };
  uint64_t gen = 0;
  std::map<Key, Pack> packs;
};
thread_local WeightPacks t_packs;

// op(W) [k][n] (W [k][n], or trans: W [n][k]) as the tile B operand;
// `source()` gives the f32 matrix to pack when the pack is stale.
template <class Source>
const uint32_t* weight_pack(const float* key, bool trans, size_t k, size_t n, size_t ld,
                            const Source& source) {
  WeightPacks& wp = t_packs;
  const uint64_t gen = g_weights_gen.load(std::memory_order_relaxed);
  if (wp.gen != gen) {  // a new generation: forget matrices the last one never used
    for (auto it = wp.packs.begin(); it != wp.packs.end();)
      it = it->second.gen < wp.gen ? wp.packs.erase(it) : std::next(it);
    wp.gen = gen;
  }
  WeightPacks::Pack& p = wp.packs[WeightPacks::Key{key, k, n, ld, trans}];
  if (p.gen != gen) {
    p.pairs.resize(tile_pairs(k) * tile_rows(n));
    pack_tile_b(trans, k, n, source(), ld, p.pairs.data());
    p.gen = gen;
  }
  return p.pairs.data();
}

// Per-thread scratch for the activation operands (grows only).
uint32_t* scratch(std::vector<uint32_t>& v, size_t n) {
  if (v.size() < n) v.resize(n);
  return v.data();
}
thread_local std::vector<uint32_t> t_a, t_b;

// C = alpha · op(A) · op(W) + beta · C on tiles, op(W) packed (weight_pack).
void tiles_times(bool ta, size_t m, size_t n, size_t k, float alpha, const float* A, size_t lda,
                 const uint32_t* w, float beta, float* C, size_t ldc) {
  const size_t kp = tile_pairs(k);
  uint32_t* a = scratch(t_a, tile_rows(m) * kp);
  pack_tile_a(ta, m, k, A, lda, a);
  g_tiles(m, n, kp, alpha, a, kp, w, tile_rows(n), beta, C, ldc);
}
}  // namespace

void train_sgemm(bool ta, bool tb, size_t m, size_t n, size_t k, float alpha, const float* A,
                 size_t lda, const float* B, size_t ldb, float beta, float* C, size_t ldc) {
  if (g_tiles && sgemm_bf16_tiles(g_tiles, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc))
    return;
  if (g_bf16 && sgemm_bf16_avx512(ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc)) return;
  train_kernels().sgemm(ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}

bool set_bf16_compute(bool on, bool emulated_tiles) {
  weights_changed();
  const bool bf16_cpu = __builtin_cpu_supports("avx512bf16");  // the packers and vdpbf16ps
  g_tiles = nullptr;
  if (on && emulated_tiles && bf16_cpu) {
    g_tiles = tile_product_emulated();
  } else if (on && train_isa() == AMXQA_ISA_AMX) {  // null without usable tiles
    g_tiles = tile_product_amx();
  }
  g_bf16 = on && (g_tiles || (train_isa() >= AMXQA_ISA_AVX512 && bf16_cpu));
  return g_bf16;
}

bool bf16_compute_on() { return g_bf16; }
bool bf16_compute_on_tiles() { return g_tiles != nullptr; }

void weights_changed() { g_weights_gen.fetch_add(1, std::memory_order_relaxed); }

void gemm_nt(size_t m, size_t n, size_t k, const float* A, size_t lda, const float* B,
             size_t ldb, float* C, size_t ldc, float beta, float alpha) {
  if (m == 0 || n == 0) return;
  train_sgemm(false, true, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}

void gemm_nn(size_t m, size_t n, size_t k, const float* A, size_t lda, const float* B,
             size_t ldb, float* C, size_t ldc, float beta, float alpha) {
  if (m == 0 || n == 0) return;
  train_sgemm(false, false, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}

namespace {
// C = alpha · A · op(W) + beta · C, op(W) = Wᵀ (trans_w) or W, W a weight.
void weight_product(bool trans_w, size_t m, size_t n, size_t k, const float* A, size_t lda,
                    const float* W, size_t ldw, float* C, size_t ldc, float beta, float alpha) {
  if (m == 0 || n == 0) return;
  if (!g_tiles || k == 0) return train_sgemm(false, trans_w, m, n, k, alpha, A, lda, W, ldw, beta, C, ldc);
  tiles_times(false, m, n, k, alpha, A, lda,
              weight_pack(W, trans_w, k, n, ldw, [&] { return W; }), beta, C, ldc);
}
}  // namespace

void gemm_nt_weight(size_t m, size_t n, size_t k, const float* A, size_t lda, const float* W,
                    size_t ldw, float* C, size_t ldc, float beta, float alpha) {
  weight_product(true, m, n, k, A, lda, W, ldw, C, ldc, beta, alpha);
}

void gemm_nn_weight(size_t m, size_t n, size_t k, const float* A, size_t lda, const float* W,
                    size_t ldw, float* C, size_t ldc, float beta, float alpha) {
  weight_product(false, m, n, k, A, lda, W, ldw, C, ldc, beta, alpha);
}

void gemm_tn_acc(size_t m, size_t n, size_t k, const float* A, size_t lda, const float* B,
                 size_t ldb, float* C, size_t ldc, float alpha) {
  if (m == 0 || n == 0 || k == 0) return;
  train_sgemm(true, false, m, n, k, alpha, A, lda, B, ldb, 1.f, C, ldc);
}

namespace {

// The stacked weights [R][d] (the parts one after another) in im.wcat.
const float* stacked_weights(Work& im, const Stacked& s, size_t R, size_t d) {
  float* W = grow(im.wcat, R * d);
  for (size_t i = 0, r = 0; i < s.count; r += s.rows[i], ++i)
    std::memcpy(W + r * d, s.w[i], s.rows[i] * d * sizeof(float));
  return W;
}

size_t stacked_rows(const Stacked& s) {
  size_t R = 0;
  for (size_t i = 0; i < s.count; ++i) R += s.rows[i];
  return R;
}

}  // namespace

// On tiles the parts are separate products that share one packed input
// (U, or U and the parts' gradients): each part's weights have their own
// cached packs and each output is written in place, so nothing is stacked
// or scattered. f32 stacks the weights into one wider sgemm instead.
void stacked_forward(Work& im, const Stacked& s, const float* U, size_t n, size_t d,
                     float* const* out) {
  if (g_tiles) {
    const size_t kp = tile_pairs(d);
    uint32_t* u = scratch(t_b, tile_rows(n) * kp);
    pack_tile_a(false, n, d, U, d, u);
    for (size_t i = 0; i < s.count; ++i) {
      const float* w = s.w[i];
      g_tiles(n, s.rows[i], kp, 1.f, u, kp,
              weight_pack(w, true, d, s.rows[i], d, [&] { return w; }), tile_rows(s.rows[i]),
              0.f, out[i], s.rows[i]);
    }
    return;
  }
  const size_t R = stacked_rows(s);
  float* Y = grow(im.ycat, n * R);
  gemm_nt(n, R, d, U, d, stacked_weights(im, s, R, d), d, Y, R);
  for (size_t i = 0, c = 0; i < s.count; c += s.rows[i], ++i)
    for (size_t p = 0; p < n; ++p)
      std::memcpy(out[i] + p * s.rows[i], Y + p * R + c, s.rows[i] * sizeof(float));
}

void stacked_backward(Work& im, const Stacked& s, const float* U, size_t n, size_t d,
                      const float* const* dout, float* din, bool accumulate) {
  if (g_tiles) {
    // g[i] += dout[i]ᵀ · U straight into each gradient (beta 1 in the
    // tiles' store), U packed once for all parts; then din = Σ dout[i] · w[i].
    const size_t kp = tile_pairs(n);
    uint32_t* u = scratch(t_b, kp * tile_rows(d));
    pack_tile_b(false, n, d, U, d, u);
    for (size_t i = 0; i < s.count; ++i) {
      uint32_t* a = scratch(t_a, tile_rows(s.rows[i]) * kp);
      pack_tile_a(true, s.rows[i], n, dout[i], s.rows[i], a);
      g_tiles(s.rows[i], d, kp, 1.f, a, kp, u, tile_rows(d), 1.f, s.g[i], d);
    }
    for (size_t i = 0; i < s.count; ++i) {
      const float* w = s.w[i];
      tiles_times(false, n, d, s.rows[i], 1.f, dout[i], s.rows[i],
                  weight_pack(w, false, s.rows[i], d, d, [&] { return w; }),
                  i == 0 && !accumulate ? 0.f : 1.f, din, d);
    }
    return;
  }
  const size_t R = stacked_rows(s);
  float* dY = grow(im.ycat, n * R);
  for (size_t i = 0, c = 0; i < s.count; c += s.rows[i], ++i)
    for (size_t p = 0; p < n; ++p)
      std::memcpy(dY + p * R + c, dout[i] + p * s.rows[i], s.rows[i] * sizeof(float));
  const float* W = stacked_weights(im, s, R, d);
  float* G = grow(im.gcat, R * d);
  std::memset(G, 0, R * d * sizeof(float));
  gemm_tn_acc(R, d, n, dY, R, U, d, G, d);
  for (size_t i = 0, r = 0; i < s.count; r += s.rows[i], ++i) {
    float* g = s.g[i];
    const float* src = G + r * d;
    for (size_t j = 0; j < s.rows[i] * d; ++j) g[j] += src[j];
  }
  gemm_nn(n, d, R, dY, R, W, d, din, d, accumulate ? 1.f : 0.f);
}

}  // namespace amxqa::train
