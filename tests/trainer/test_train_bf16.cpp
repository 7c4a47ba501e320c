// test_train_bf16.cpp — the trainer's bf16 compute against its f32 oracle:
// ci-tiny's architecture (trainer/recipes/ci-tiny.recipe) trained a few
// steps both ways, on the tile path through the tile emulator (so CI runs it
// on CPUs without AMX) and on vdpbf16ps where the CPU has AVX512-BF16; the
// validation losses must agree within 0.3% (measured 2026-12-07: 0.03%, 5.4646
// f32 against 5.4630 tiles and 5.4660 vdpbf16ps). The data are documents of a
// fixed random Markov chain over the vocabulary (each id has 4 likely
// successors), so the loss moves well away from ln(vocab) in a few steps.
// The emulator is slow (a scalar tdpbf16ps): the run is kept to seconds.
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include "format/splitmix64.h"
#include "model/step_workers.h"
#include "model/train_model.h"
#include "recipe/recipe.h"
#include "recipe/run_config.h"

using namespace amxqa;
using namespace amxqa::train;

namespace {

struct Doc {
  std::vector<uint32_t> tokens;
  std::vector<uint8_t> mask;
};

// Document `c` of `n` tokens: BOS, then the chain from a random start.
Doc chain_doc(uint64_t c, size_t n, uint32_t vocab) {
  uint64_t s = c * 0x9e3779b97f4a7c15ull + 1;
  Doc d;
  d.tokens = {kBos};
  uint32_t t = kByteBase + uint32_t(splitmix64(s) % (vocab - kByteBase));
  while (d.tokens.size() < n) {
    d.tokens.push_back(t);
    const uint64_t r = splitmix64(s);
    // successor j of t (j = 0..3, probabilities 0.6, 0.2, 0.1, 0.1), or any id (rarely)
    const uint32_t j = r % 10 < 6 ? 0 : r % 10 < 8 ? 1 : r % 10 < 9 ? 2 : 3;
    uint64_t h = uint64_t(t) * 4 + j;
    t = kByteBase + uint32_t(splitmix64(h) % (vocab - kByteBase));
  }
  d.mask.assign(n, 1);
  return d;
}

std::vector<StepDoc> step_docs(const std::vector<Doc>& docs, float ce_scale) {
  std::vector<StepDoc> out;
  for (const Doc& d : docs) {
    LossOptions o;
    o.kind = LossKind::full;
    o.ce_scale = ce_scale;
    out.push_back(StepDoc{d.tokens.data(), d.tokens.size(), d.mask.data(), o});
  }
  return out;
}

// `steps` steps of 4 documents of 64 tokens on 2 threads; returns the mean
// validation loss over 4 held-out documents, before (first) and after.
std::pair<double, double> train_val(const ArchConfig& arch, int steps) {
  TrainModel m(arch, 1);
  StepWorkers workers(m, 2);
  AdamWConfig c;
  c.lr = 1e-2f;
  c.warmup = 2;
  std::vector<Doc> val;
  for (uint64_t i = 0; i < 4; ++i) val.push_back(chain_doc(1000 + i, 64, arch.vocab_size));
  auto val_loss = [&] {
    double sum = 0, n = 0;
    for (const StepStats& s : workers.evaluate(step_docs(val, 0.f))) {
      sum += s.loss_sum;
      n += double(s.predicted);
    }
    return sum / n;
  };
  const double before = val_loss();
  for (int step = 1; step <= steps; ++step) {
    std::vector<Doc> docs;
    for (uint64_t i = 0; i < 4; ++i) docs.push_back(chain_doc(uint64_t(step) * 10 + i, 64, arch.vocab_size));
    workers.forward_backward(step_docs(docs, 1.f / (4 * 63)));
    workers.adamw_step(c, uint64_t(step), lr_at(c, uint64_t(step), uint64_t(steps)));
  }
  return {before, val_loss()};
}

}  // namespace

TEST_SUITE("unit") {
  TEST_CASE("bf16 compute (tiles on the emulator, and vdpbf16ps): ci-tiny's val loss within 0.3% of f32") {
    if (!__builtin_cpu_supports("avx512bf16")) return;  // the tile operands' packers
    const RunConfig rc = read_run_config(
        Recipe::load(std::string(AMXQA_SOURCE_DIR) + "/trainer/recipes/ci-tiny.recipe"));
    const int steps = 12;
    const auto f32 = train_val(rc.arch, steps);
    // It learned: the bound below compares trained models, not two initialisations.
    CHECK(f32.second < 0.9 * f32.first);
    REQUIRE(set_bf16_compute(true, true));
    const auto tiles = train_val(rc.arch, steps);
    set_bf16_compute(false);
    MESSAGE("val loss f32 " << f32.first << " -> " << f32.second << ", bf16 tiles (emulated) "
                            << tiles.first << " -> " << tiles.second);
    CHECK(tiles.second != f32.second);  // the products ran in bf16
    CHECK(std::fabs(tiles.second - f32.second) < 0.003 * f32.second);
    if (set_bf16_compute(true) && !bf16_compute_on_tiles()) {  // vdpbf16ps
      const auto vec = train_val(rc.arch, steps);
      set_bf16_compute(false);
      MESSAGE("bf16 vdpbf16ps " << vec.first << " -> " << vec.second);
      CHECK(std::fabs(vec.second - f32.second) < 0.003 * f32.second);
    }
    set_bf16_compute(false);
  }
}
