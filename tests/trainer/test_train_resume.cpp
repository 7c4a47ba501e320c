// test_train_resume.cpp — checkpoints are bit-exact: N steps straight equal
// N/2 steps, save, load into a fresh model (other seed), N/2 more steps, in
// every weight, moment and token count. Also: absent file, corrupt file.
#include <doctest/doctest.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "model/train_model.h"
#include "toy_moe_model.h"

using namespace amxqa;
using namespace amxqa::train;
using namespace amxqa::train::test;

namespace {

// Step `step` of a toy run: two documents, sampled softmax, AdamW.
void train_step(TrainModel& m, uint64_t step, uint64_t total, const AdamWConfig& c) {
  m.zero_grad();
  for (uint64_t doc = 0; doc < 2; ++doc) {
    uint64_t s = step * 1000 + doc;
    std::vector<uint32_t> toks{kBos};
    for (int i = 0; i < 23; ++i) {
      s = s * 6364136223846793005ull + 1442695040888963407ull;
      toks.push_back(5 + static_cast<uint32_t>((s >> 33) % 59));
    }
    std::vector<uint8_t> mask(toks.size(), 1);
    LossOptions opt;
    opt.kind = LossKind::sampled;
    opt.sampled_pool = 16;
    opt.seed = s;
    opt.aux_scale = 0.5f;
    m.forward_backward(toks.data(), toks.size(), mask.data(), opt);
  }
  adamw_step(m.params(), c, step, lr_at(c, step, total));
}

}  // namespace

TEST_SUITE("unit") {
  TEST_CASE("resume from a checkpoint is bit-exact") {
    const uint64_t N = 8;
    AdamWConfig c;
    c.lr = 3e-3f;
    c.warmup = 2;
    TrainModel straight(toy_moe_arch(), 42);
    for (uint64_t s = 1; s <= N; ++s) train_step(straight, s, N, c);

    const std::string path = "test_train_resume.ckpt";
    {
      TrainModel first(toy_moe_arch(), 42);
      for (uint64_t s = 1; s <= N / 2; ++s) train_step(first, s, N, c);
      TrainState st;
      st.step = N / 2;
      st.rng_state = 0xDEADBEEF;
      st.extra = "stage=pretrain";
      save_checkpoint(path, first, st);
    }
    TrainModel resumed(toy_moe_arch(), 777);  // other seed: everything must come from the file
    TrainState st;
    REQUIRE(load_checkpoint(path, resumed, st));
    CHECK(st.step == N / 2);
    CHECK(st.rng_state == 0xDEADBEEF);
    CHECK(st.extra == "stage=pretrain");
    for (uint64_t s = st.step + 1; s <= N; ++s) train_step(resumed, s, N, c);

    check_same_model(straight, resumed);
    // Training moved the weights away from init.
    TrainModel init(toy_moe_arch(), 42);
    CHECK_FALSE(same_bits(init.params()[0].w, straight.params()[0].w));

    // A corrupt file is refused and leaves the model as it was.
    {
      FILE* f = std::fopen(path.c_str(), "r+b");
      REQUIRE(f != nullptr);
      std::fseek(f, 100, SEEK_SET);
      std::fputc(0x5A, f);
      std::fclose(f);
    }
    const std::vector<float> before = resumed.params()[0].w;
    TrainState st2;
    CHECK_THROWS(load_checkpoint(path, resumed, st2));
    CHECK(same_bits(before, resumed.params()[0].w));
    std::remove(path.c_str());
    CHECK_FALSE(load_checkpoint(path, resumed, st2));
  }

  TEST_CASE("checkpoint of another architecture is refused") {
    TrainModel a(toy_moe_arch(), 1);
    ArchConfig other = toy_moe_arch();
    other.d_ff = 48;
    TrainModel b(other, 1);
    const std::string path = "test_train_resume_arch.ckpt";
    save_checkpoint(path, a, TrainState{});
    TrainState st;
    CHECK_THROWS(load_checkpoint(path, b, st));
    std::remove(path.c_str());
  }

  TEST_CASE("lr schedule: warm-up then cosine to final_lr_frac") {
    AdamWConfig c;
    c.lr = 1e-3f;
    c.warmup = 10;
    CHECK(lr_at(c, 5, 100) == doctest::Approx(5e-4));
    CHECK(lr_at(c, 10, 100) == doctest::Approx(1e-3));
    CHECK(lr_at(c, 100, 100) == doctest::Approx(1e-4));
    CHECK(lr_at(c, 55, 100) == doctest::Approx(5.5e-4));
  }
}
