// test_train_throughput.cpp — training tokens/s of forward_backward + AdamW on
// one core, with a per-stage breakdown, for the small config and the paper's
// reference shape (d 256, lin swa swa lin swa lin, MoE E=128 k=4 in 0 3 5,
// vocab 16384, one 1024-token document per step, sampled softmax pool 1024).
// Suite "slow": run it on purpose (ctest -L slow), not with the unit tests.
#include <doctest/doctest.h>

#include <time.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "model/train_model.h"

using namespace amxqa;
using namespace amxqa::train;

namespace {

// This thread's CPU seconds: the machine may be shared while this runs.
double cpu_now() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + 1e-9 * double(ts.tv_nsec);
}

// docs_per_step documents of `seq` tokens per optimiser step. QA SFT shape
// (answer_positions > 0): extractive loss, readout only at the last positions.
double run(const ArchConfig& a, size_t seq, LossKind kind, int steps, const char* label,
           size_t docs_per_step = 1, size_t answer_positions = 0) {
  TrainModel m(a, 1);
  AdamWConfig c;
  std::vector<uint32_t> toks{kBos};
  uint64_t s = 9;
  for (size_t i = 1; i < seq; ++i) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    toks.push_back(5 + static_cast<uint32_t>((s >> 33) % (a.vocab_size - 5)));
  }
  std::vector<uint8_t> mask(seq, 1);
  LossOptions opt;
  opt.kind = kind;
  opt.sampled_pool = 1024;
  if (answer_positions > 0) {
    mask.assign(seq, 0);
    for (size_t i = seq - 1 - answer_positions; i + 1 < seq; ++i) mask[i] = 1;
    opt.passage_begin = 20;
    opt.passage_end = static_cast<uint32_t>(seq - 1 - answer_positions);
  }
  double opt_s = 0, total_s = 0, loss = 0;
  for (int step = 0; step <= steps; ++step) {  // step 0 warms buffers and caches
    if (step == 1) m.reset_stage_times();
    const double t0 = cpu_now();
    m.zero_grad();
    StepStats st;
    for (size_t doc = 0; doc < docs_per_step; ++doc) {
      opt.seed = step * 1000 + doc;
      st = m.forward_backward(toks.data(), toks.size(), mask.data(), opt);
    }
    const double t1 = cpu_now();
    adamw_step(m.params(), c, step + 1, lr_at(c, step + 1, 1000));
    const double t2 = cpu_now();
    if (step > 0) {
      opt_s += t2 - t1;
      total_s += t2 - t0;
    }
    loss = st.loss_sum / st.predicted;
  }
  const StageTimes& t = m.stage_times();
  const double tok_s = double(seq) * docs_per_step * steps / total_s;
  std::printf("%s [%s]: %.0f tok/s per CPU-second (loss %.3f); per step %.1f ms = attention %.1f, moe %.1f, "
              "mlp %.1f, readout %.1f, optimiser %.1f, other %.1f\n",
              label, train_kernels().name, tok_s, loss, 1e3 * total_s / steps,
              1e3 * t.attention / steps, 1e3 * t.moe / steps, 1e3 * t.mlp / steps,
              1e3 * t.readout / steps, 1e3 * opt_s / steps, 1e3 * t.other / steps);
  CHECK(std::isfinite(loss));
  return tok_s;
}

}  // namespace

ArchConfig reference_arch() {
  ArchConfig a;
  a.d_model = 256;
  a.n_layers = 6;
  a.layer_kinds = {kLayerLin, kLayerSwa, kLayerSwa, kLayerLin, kLayerSwa, kLayerLin};
  a.n_heads = 2;
  a.n_kv_heads = 1;
  a.head_dim = 32;
  a.window = 256;
  a.lin_state = 32;
  a.d_ff = 640;
  a.moe_experts = 128;
  a.moe_top_k = 4;
  a.moe_d_ff = 160;
  a.moe_route_block = 256;
  a.moe_route_window = 256;
  a.moe_layers = {0, 3, 5};
  a.vocab_size = 16384;
  return a;
}

TEST_SUITE("slow") {
  TEST_CASE("training throughput: small config (d 64, lin+swa, vocab 512, seq 256)") {
    ArchConfig a;
    a.d_model = 64;
    a.n_layers = 2;
    a.layer_kinds = {kLayerLin, kLayerSwa};
    a.vocab_size = 512;
    CHECK(run(a, 256, LossKind::full, 20, "small full") > 1000.0);
  }

  TEST_CASE("training throughput: paper reference shape (seq 1024, sampled softmax)") {
    const char* env = std::getenv("TRAIN_BENCH_STEPS");  // more steps for profiling
    const int steps = env ? std::atoi(env) : 4;
    CHECK(run(reference_arch(), 1024, LossKind::sampled, steps > 0 ? steps : 4,
              "reference sampled") > 300.0);
  }

  TEST_CASE("training throughput: reference shape, QA SFT (16 docs x 200 tokens, extractive)") {
    CHECK(run(reference_arch(), 200, LossKind::extractive, 3, "reference QA SFT", 16, 5) > 300.0);
  }
}
