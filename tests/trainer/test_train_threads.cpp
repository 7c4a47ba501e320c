// test_train_threads.cpp — training on N threads gives the weights of one
// thread, bit for bit: StepWorkers' micro-batches, gradients summed in
// micro-batch order, per-thread replicas (a MoE toy model, so touched experts
// and token counts are merged too), and train_loop end to end (prefetched
// batches, threaded validation) for 1, 2 and 3 threads. Also: a source that
// hands out one reused slot (as PieceSource does) trains on every document.
// And the optimizer step's fixed units: their partition, StepWorkers::adamw_step
// against the free adamw_step, and zero gradient in untouched expert slices.
// The bf16 tile path (on the tile emulator) keeps the same-bits rule.
#include <doctest/doctest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "format/splitmix64.h"
#include "model/optimizer_units.h"
#include "model/step_workers.h"
#include "model/train_model.h"
#include "toy_moe_model.h"
#include "report/metrics_log.h"
#include "stages/run_context.h"
#include "stages/train_loop.h"

using namespace amxqa;
using namespace amxqa::train;
using namespace amxqa::train::test;

namespace {

// Document `c`: BOS and 6..40 pseudo-random ids; odd documents carry a
// passage (extractive loss where the stage asks for it).
Example toy_doc(uint64_t c) {
  uint64_t s = c * 0x9e3779b97f4a7c15ull + 7;
  auto next = [&] {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<uint32_t>(s >> 33);
  };
  Example ex;
  const size_t n = 7 + next() % 35;
  ex.tokens = {kBos};
  while (ex.tokens.size() < n) ex.tokens.push_back(5 + next() % 59);
  ex.mask.assign(n, 1);
  if (c % 2) {
    ex.passage_begin = 2;
    ex.passage_end = static_cast<uint32_t>(n - 1);
  }
  return ex;
}

// `steps` AdamW steps of 11 documents each through StepWorkers on `threads`;
// the step by the free adamw_step, or by StepWorkers::adamw_step (which keeps
// the replicas' weights instead of the next job copying them).
std::unique_ptr<TrainModel> train_with(unsigned threads, LossKind kind, int steps,
                                       std::vector<double>* losses, bool worker_step = false) {
  auto m = std::make_unique<TrainModel>(toy_moe_arch(), 3);
  StepWorkers workers(*m, threads);
  AdamWConfig c;
  c.lr = 3e-3f;
  for (int step = 1; step <= steps; ++step) {
    std::vector<Example> ex;
    for (uint64_t d = 0; d < 11; ++d) ex.push_back(toy_doc(uint64_t(step) * 100 + d));
    std::vector<StepDoc> docs;
    for (const Example& e : ex) {
      LossOptions o;
      o.kind = e.passage_end ? kind : LossKind::sampled;
      o.sampled_pool = 16;
      o.seed = uint64_t(step);
      o.passage_begin = e.passage_begin;
      o.passage_end = e.passage_end;
      o.ce_scale = 1.f / 300.f;
      o.aux_scale = 1.f / 11.f;
      docs.push_back(StepDoc{e.tokens.data(), e.tokens.size(), e.mask.data(), o});
    }
    for (const StepStats& s : workers.forward_backward(docs)) losses->push_back(s.loss_sum);
    const float lr = lr_at(c, uint64_t(step), uint64_t(steps));
    if (worker_step)
      workers.adamw_step(c, uint64_t(step), lr);
    else
      adamw_step(m->params(), c, uint64_t(step), lr);
  }
  return m;
}

// A source that reuses one slot, like PieceSource: a batch must copy its documents.
class SlotSource : public DocSource {
 public:
  const Example& at(uint64_t cursor) override {
    slot_ = toy_doc(cursor);
    return slot_;
  }
 private:
  Example slot_;
};

std::string temp_dir(const std::string& name) {
  const std::string d = "/tmp/amxqa-threads-test-" + std::to_string(::getpid()) + "-" + name;
  make_dirs(d);
  return d;
}

// train_loop for `steps` steps of about 120 tokens on `threads`; returns the
// final checkpoint's model.
std::unique_ptr<TrainModel> loop_with(unsigned threads, uint64_t steps, double* val_loss) {
  RunContext ctx;
  ctx.cfg.arch = toy_moe_arch();
  ctx.cfg.threads = threads;
  ctx.cfg.seed = 5;
  ctx.log = std::make_unique<MetricsLog>();
  StageConfig cfg;
  cfg.name = "pretrain";
  cfg.steps = steps;
  cfg.batch_tokens = 120;
  cfg.optim.lr = 3e-3f;
  cfg.loss.kind = LossKind::extractive;
  cfg.log_every = 0;
  cfg.eval_every = 2;
  cfg.checkpoint_every = 0;
  std::vector<Example> val;
  for (uint64_t c = 1000; c < 1006; ++c) val.push_back(toy_doc(c));
  const std::string dir = temp_dir("loop" + std::to_string(threads));
  LoopSpec spec;
  spec.cfg = &cfg;
  spec.partial_ckpt = dir + "/partial.ckpt";
  spec.final_ckpt = dir + "/final.ckpt";
  spec.val = &val;
  auto model = std::make_unique<TrainModel>(ctx.cfg.arch, ctx.cfg.seed);
  TrainState state;
  SlotSource source;
  const LoopResult r = train_loop(ctx, "pretrain", *model, state, source, spec);
  CHECK(r.steps == steps);
  *val_loss = r.val_loss;
  auto loaded = std::make_unique<TrainModel>(ctx.cfg.arch, 99);
  TrainState st;
  REQUIRE(load_checkpoint(spec.final_ckpt, *loaded, st));
  check_same_model(*model, *loaded);
  std::remove(spec.final_ckpt.c_str());
  ::rmdir(dir.c_str());
  return model;
}

}  // namespace

TEST_SUITE("unit") {
  TEST_CASE("micro-batches: contiguous, ascending, about equal tokens, independent of threads") {
    std::vector<size_t> sizes;
    for (size_t i = 0; i < 40; ++i) sizes.push_back(10 + (i * 37) % 90);
    const std::vector<uint32_t> mb = micro_batch_of(sizes);
    REQUIRE(mb.size() == sizes.size());
    CHECK(mb.front() == 0);
    CHECK(mb.back() == kMicroBatches - 1);
    std::vector<size_t> tokens(kMicroBatches, 0);
    size_t total = 0;
    for (size_t i = 0; i < mb.size(); ++i) {
      if (i) CHECK((mb[i] == mb[i - 1] || mb[i] == mb[i - 1] + 1));
      tokens[mb[i]] += sizes[i];
      total += sizes[i];
    }
    for (size_t t : tokens) CHECK(t <= total / kMicroBatches + 100);  // at most one document over
    // Fewer documents than micro-batches: one each, in order.
    const std::vector<uint32_t> few = micro_batch_of({5, 5, 5});
    CHECK(few == std::vector<uint32_t>{0, 2, 5});
    CHECK(micro_batch_of({}).empty());
  }

  TEST_CASE("StepWorkers: 1, 2, 3 and 4 threads train the same bits (MoE, sampled and extractive)") {
    for (LossKind kind : {LossKind::sampled, LossKind::extractive}) {
      std::vector<double> l1, l2, l3, l4;
      auto m1 = train_with(1, kind, 3, &l1);
      auto m2 = train_with(2, kind, 3, &l2);
      auto m3 = train_with(3, kind, 3, &l3);
      auto m4 = train_with(4, kind, 3, &l4);
      check_same_model(*m1, *m2);
      check_same_model(*m1, *m3);
      check_same_model(*m1, *m4);
      CHECK(l1 == l2);
      CHECK(l1 == l3);
      CHECK(l1 == l4);
      for (unsigned threads : {1u, 2u}) {  // the step on the workers: the same bits
        std::vector<double> lw;
        auto mw = train_with(threads, kind, 3, &lw, true);
        check_same_model(*m1, *mw);
        CHECK(l1 == lw);
      }
      // And it trained: the weights moved from the initialisation.
      TrainModel init(toy_moe_arch(), 3);
      CHECK_FALSE(same_bits(init.params()[0].w, m1->params()[0].w));
    }
  }

  TEST_CASE("StepWorkers on tiles (the emulator): 1 and 2 threads train the same bits") {
    if (!__builtin_cpu_supports("avx512bf16")) return;  // the tile operands' packers
    std::vector<double> f32_losses;
    auto f32 = train_with(1, LossKind::extractive, 2, &f32_losses);
    REQUIRE(set_bf16_compute(true, true));
    REQUIRE(bf16_compute_on_tiles());
    std::vector<double> l1, l2;
    auto m1 = train_with(1, LossKind::extractive, 2, &l1, true);
    auto m2 = train_with(2, LossKind::extractive, 2, &l2, true);
    set_bf16_compute(false);
    check_same_model(*m1, *m2);
    CHECK(l1 == l2);
    // The products ran in bf16 (other bits than f32), near the f32 losses.
    CHECK(l1 != f32_losses);
    REQUIRE(l1.size() == f32_losses.size());
    for (size_t i = 0; i < l1.size(); ++i) CHECK(l1[i] == doctest::Approx(f32_losses[i]).epsilon(0.02));
  }

  TEST_CASE("StepWorkers: a bad document throws, and the workers keep working") {
    TrainModel m(toy_moe_arch(), 3);
    StepWorkers workers(m, 2);
    std::vector<Example> ex;
    for (uint64_t d = 0; d < 9; ++d) ex.push_back(toy_doc(d));
    ex[4].tokens[3] = 1000;  // >= vocab_size
    std::vector<StepDoc> docs;
    for (const Example& e : ex) docs.push_back(StepDoc{e.tokens.data(), e.tokens.size(), e.mask.data(), {}});
    CHECK_THROWS_AS(workers.forward_backward(docs), std::invalid_argument);
    CHECK_THROWS_AS(workers.evaluate(docs), std::invalid_argument);
    docs.erase(docs.begin() + 4);
    const std::vector<StepStats> st = workers.forward_backward(docs);
    REQUIRE(st.size() == 8);
    for (const StepStats& s : st) CHECK(s.predicted > 0);
    CHECK(m.grad_norm() > 0);
  }

  TEST_CASE("train_loop: 1, 2 and 3 threads end with the same checkpoint; a reused slot is copied") {
    double v1 = 0, v2 = 0, v3 = 0;
    auto m1 = loop_with(1, 4, &v1);
    auto m2 = loop_with(2, 4, &v2);
    auto m3 = loop_with(3, 4, &v3);
    check_same_model(*m1, *m2);
    check_same_model(*m1, *m3);
    CHECK(v1 == v2);
    CHECK(v1 == v3);
    // Step 1 by hand from the documents the source hands out: the loop must
    // have trained on each of them, not on the last one several times.
    auto one = loop_with(1, 1, &v1);
    TrainModel ref(toy_moe_arch(), 5);
    {
      StepWorkers workers(ref, 1);
      std::vector<Example> ex;
      uint64_t tokens = 0, pred = 0;
      for (uint64_t c = 0; tokens < 120; ++c) {
        ex.push_back(toy_doc(c));
        tokens += ex.back().tokens.size();
        pred += ex.back().tokens.size() - 1;
      }
      REQUIRE(ex.size() > 2);
      std::vector<StepDoc> docs;
      for (const Example& e : ex) {
        LossOptions o;
        o.kind = e.passage_end > e.passage_begin ? LossKind::extractive : LossKind::full;
        o.seed = 0;  // cfg.loss.seed ^ (step 0 · constant); only the sampled loss reads it
        o.passage_begin = e.passage_begin;
        o.passage_end = e.passage_end;
        o.ce_scale = 1.f / static_cast<float>(pred);
        o.aux_scale = 1.f / static_cast<float>(ex.size());
        docs.push_back(StepDoc{e.tokens.data(), e.tokens.size(), e.mask.data(), o});
      }
      workers.forward_backward(docs);
      AdamWConfig c;
      c.lr = 3e-3f;
      adamw_step(ref.params(), c, 1, lr_at(c, 1, 1));
    }
    check_same_model(ref, *one);
  }

  TEST_CASE("optimizer units: every element once, in order, at most kOptUnitElems, experts apart") {
    ArchConfig a = toy_moe_arch();
    a.vocab_size = 9000;  // tok_emb 144,000 floats: three units
    TrainModel m(a, 1);
    const std::vector<Param>& P = m.params();
    const std::vector<OptUnit> units = optimizer_units(P);
    size_t u = 0;
    for (size_t i = 0; i < P.size(); ++i) {
      size_t next = 0;  // every element of P[i], ascending, no gap
      for (; u < units.size() && units[u].param == i; ++u) {
        CHECK(units[u].begin == next);
        CHECK(units[u].count > 0);
        CHECK(units[u].count <= kOptUnitElems);
        if (P[i].touched.empty()) {
          CHECK(units[u].expert == -1);
        } else {  // inside one expert's slice
          const size_t slice = P[i].w.size() / P[i].touched.size();
          REQUIRE(units[u].expert >= 0);
          CHECK(units[u].begin / slice == size_t(units[u].expert));
          CHECK((units[u].begin + units[u].count - 1) / slice == size_t(units[u].expert));
        }
        next += units[u].count;
      }
      CHECK(next == P[i].w.size());
    }
    CHECK(u == units.size());
    CHECK(units[0].count == kOptUnitElems);  // tok_emb is cut
    CHECK(units[2].count == 144000 - 2 * kOptUnitElems);
  }

  TEST_CASE("StepWorkers::adamw_step: the free adamw_step's bits on 1, 2 and 3 threads") {
    ArchConfig a = toy_moe_arch();
    a.vocab_size = 9000;  // a parameter over several units
    AdamWConfig c;
    c.clip = 0.5f;  // the norm is over it: the clip scale uses it
    // Gradients by hand (pseudo-random, some experts touched) for two steps.
    auto fill = [](TrainModel& m, uint64_t step) {
      uint64_t s = step * 0x9e3779b97f4a7c15ull;
      for (Param& p : m.params()) {
        for (float& g : p.g) g = float(int64_t(splitmix64(s) >> 40) - (int64_t(1) << 23)) * 0x1p-30f;
        for (size_t e = 0; e < p.touched.size(); ++e) p.touched[e] = (e + step) % 3 != 0;
        const size_t slice = p.touched.empty() ? 0 : p.g.size() / p.touched.size();
        for (size_t e = 0; e < p.touched.size(); ++e)
          if (!p.touched[e]) std::fill(p.g.begin() + e * slice, p.g.begin() + (e + 1) * slice, 0.f);
      }
    };
    TrainModel ref(a, 4);
    std::vector<double> ref_norms;
    for (uint64_t step = 1; step <= 2; ++step) {
      fill(ref, step);
      ref_norms.push_back(adamw_step(ref.params(), c, step, 1e-3f));
    }
    CHECK(ref_norms[0] > c.clip);
    for (unsigned threads : {1u, 2u, 3u}) {
      TrainModel m(a, 4);
      StepWorkers workers(m, threads);
      for (uint64_t step = 1; step <= 2; ++step) {
        fill(m, step);
        const double norm = workers.adamw_step(c, step, 1e-3f);
        CHECK(std::memcmp(&norm, &ref_norms[step - 1], sizeof norm) == 0);
      }
      check_same_model(ref, m);
    }
  }

  TEST_CASE("StepWorkers: untouched expert slices hold zero gradient after each step") {
    // One short document a step: one routing block, two of six experts, so
    // experts touched in one step are often untouched in the next.
    TrainModel m(toy_moe_arch(), 3);
    StepWorkers workers(m, 2);
    AdamWConfig c;
    std::vector<uint8_t> before;
    size_t dropped = 0;  // slices touched last step, not this one
    for (uint64_t step = 1; step <= 8; ++step) {
      Example e = toy_doc(step * 50);
      e.tokens.resize(8);
      e.mask.resize(8);
      std::vector<StepDoc> docs{StepDoc{e.tokens.data(), e.tokens.size(), e.mask.data(), {}}};
      workers.forward_backward(docs);
      std::vector<uint8_t> now;
      for (const Param& p : m.params()) {
        if (p.touched.empty()) continue;
        const size_t slice = p.g.size() / p.touched.size();
        for (size_t e = 0; e < p.touched.size(); ++e) {
          bool zero = true;
          for (size_t j = e * slice; j < (e + 1) * slice; ++j) zero = zero && p.g[j] == 0.f;
          if (!p.touched[e]) CHECK(zero);
          now.push_back(p.touched[e]);
        }
      }
      for (size_t i = 0; i < before.size(); ++i) dropped += before[i] && !now[i];
      before = now;
      workers.adamw_step(c, step, 1e-3f);
    }
    CHECK(dropped > 0);
  }
}
