// test_finetune.cpp — `amxqa-train finetune`, called in-process as the tool
// runs it (trainer/main.cpp is only `return run_cli(argc, argv)`), on
// tests/data/finetune_small.json (four paragraphs written for this test,
// SQuAD 2.0 format, answerable and unanswerable questions, answers after
// non-ASCII text so answer_start counts characters) and a tiny int8 model
// with a start and an end pointer made here from the trainer's random init:
//   - a few steps: the output opens through the C API and answers, keeps the
//     input's int8 weights, carries a threshold re-chosen on the held-out
//     paragraph, the before/after figures are printed and the card is written;
//   - on v1.1 data (no unanswerable question held out) the input's threshold
//     is kept; --dtype and --dev are honoured;
//   - every refusal (bad JSON, gzip garbage, an answer not at its
//     answer_start, no usable question, an invalid model, a model without a
//     start pointer, an unwritable output, missing flags) exits non-zero with
//     its message, before any training;
//   - --help names every flag;
//   - init.model's import reads f32, bf16 (vnni2) and int8 (vnni4, dequantised)
//     files back to the weights they were written from.
//   - a base model may gain question_match and start_pointer, never lose them.
// A few seconds of one core in Release.
#include <doctest/doctest.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "amxqa.hpp"
#include "cli/commands.h"
#include "format/model_writer.h"
#include "format/random_model.h"
#include "model/train_model.h"
#include "stages/export_model.h"
#include "stages/import_model.h"
#include "run_trainer.h"
#include "toy_moe_model.h"

namespace {

using amxqa::train::test::read_all;
using amxqa::train::test::Run;
using amxqa::train::test::run_trainer;
using amxqa::train::test::TempDir;

// The trainer tests' smallest model (every layer kind and a MoE layer) with
// a vocabulary above the byte ids, a start and an end pointer, the reference
// tokenizer, random weights and int8 matrices.
void write_tiny_model(const std::string& path, bool start_pointer) {
  amxqa::ArchConfig a = amxqa::train::test::toy_moe_arch();
  a.vocab_size = 320;
  a.start_pointer = a.end_pointer = start_pointer;
  amxqa::train::TrainModel model(a, 7);
  amxqa::ModelSpec spec;
  spec.arch = a;
  spec.tokenizer = amxqa::make_reference_tokenizer(a.vocab_size);
  spec.vocab_mask = amxqa::train::open_vocab_mask(a.vocab_size);
  spec.tensors = model.to_tensors(amxqa::DType::i8, 8);
  spec.calibration.present = true;
  spec.calibration.no_answer_threshold = 0.5f;
  spec.calibration.method = "test";
  amxqa::write_file(path, amxqa::write_model(spec));
}

const std::string kData = std::string(AMXQA_SOURCE_DIR) + "/tests/data/finetune_small.json";

}  // namespace

TEST_SUITE("integration") {

TEST_CASE("finetune: a few steps on a small SQuAD 2.0 file; the output opens, answers, and has its card") {
  TempDir dir;
  const std::string in = dir.path + "/tiny.amxqa", out = dir.path + "/new.amxqa";
  write_tiny_model(in, true);
  const Run r = run_trainer(dir.path, {"finetune", "--model", in, "--data", kData, "--out", out, "--steps", "3",
                                       "--batch-tokens", "1024", "--threads", "2"});
  INFO(r.err);
  INFO(r.out);
  REQUIRE(r.rc == 0);
  // 4 paragraphs, one held out (the last: 3 answerable, 2 unanswerable questions).
  CHECK(r.out.find("trained on 3 paragraphs (10 answerable, 6 unanswerable questions)") != std::string::npos);
  CHECK(r.out.find("held out: 5 questions (3 answerable, 2 unanswerable)") != std::string::npos);
  CHECK(r.out.find("\n  before ") != std::string::npos);
  CHECK(r.out.find("\n  after ") != std::string::npos);
  CHECK(r.out.find("re-chosen on the held-out questions") != std::string::npos);
  CHECK(r.err.find("[finetune] step 3/3") != std::string::npos);  // the loop's progress line
  // stderr is a file here: every progress line is a line of its own (console::ProgressLine).
  CHECK(r.err.find('\r') == std::string::npos);
  CHECK(r.err.find("\n[finetune] step 3/3") != std::string::npos);
  // The file holds what defines the model, nothing of this machine: no folder
  // (init.model is the file's name), no thread count (Recipe::model_text).
  const std::string bytes = read_all(out);
  CHECK(bytes.find(dir.path) == std::string::npos);
  CHECK(bytes.find("threads =") == std::string::npos);
  CHECK(bytes.find("model = tiny.amxqa") != std::string::npos);

  const amxqa::Model m = amxqa::Model::open_file(out);
  REQUIRE_MESSAGE(m.ok(), m.status().message);
  const amxqa_model_info info = m.info();
  CHECK(std::string(info.weight_dtype) == "int8");  // the input's type
  CHECK(info.calibrated == 1);
  CHECK(std::string(info.calibration_method).find("best F1 with over-refusal <= 15% on held-out") != std::string::npos);
  CHECK(std::string(info.recipe) == "finetune");
  amxqa::Session s = amxqa::Session::create(m, amxqa::default_options());
  REQUIRE(s.ok());
  const amxqa::Answer a = s.answer("Who built the lighthouse?", "The lighthouse was built in 1861 by Agnes Trevail.");
  CHECK(a.status.ok());

  const std::string card = read_all(dir.path + "/new.MODEL_CARD.md");
  CHECK(card.find("## Held-out figures") != std::string::npos);
  CHECK(card.find("| before (its own threshold) |") != std::string::npos);
  CHECK(card.find("| after (the written threshold) |") != std::string::npos);
  CHECK(card.find("3 steps") != std::string::npos);
  CHECK(card.find("on 2 thread(s)") != std::string::npos);
  CHECK(card.find("## Generations (held out)") != std::string::npos);
  CHECK(read_all(out + ".work/tokenizer.tok").empty());  // the work folder is gone
}

TEST_CASE("finetune on SQuAD v1.1 data keeps the input's threshold; --dtype and --dev") {
  TempDir dir;
  const std::string in = dir.path + "/tiny.amxqa", out = dir.path + "/f32.amxqa";
  write_tiny_model(in, true);
  // The small file without its unanswerable questions, trained on; all of it held out with --dev.
  nlohmann::json v11 = nlohmann::json::parse(read_all(kData));
  for (auto& article : v11["data"])
    for (auto& p : article["paragraphs"]) {
      nlohmann::json kept = nlohmann::json::array();
      for (auto& q : p["qas"])
        if (!q["is_impossible"].get<bool>()) kept.push_back(q);
      p["qas"] = kept;
    }
  const std::string data = dir.path + "/v11.json";
  std::ofstream(data) << v11.dump();
  const Run r = run_trainer(dir.path, {"finetune", "--model", in, "--data", data, "--dev", data, "--out", out,
                                       "--steps", "1", "--dtype", "f32", "--made-up", "0"});
  INFO(r.err);
  INFO(r.out);
  REQUIRE(r.rc == 0);
  CHECK(r.out.find("trained on 4 paragraphs (13 answerable, 0 unanswerable questions)") != std::string::npos);
  CHECK(r.out.find("the --dev file") != std::string::npos);
  CHECK(r.out.find("threshold +0.500 was kept") != std::string::npos);
  const amxqa::Model m = amxqa::Model::open_file(out);
  REQUIRE_MESSAGE(m.ok(), m.status().message);
  CHECK(std::string(m.info().weight_dtype) == "f32");
  CHECK(m.info().no_answer_threshold == 0.5f);
  CHECK(std::string(m.info().calibration_method) == "test");
}

TEST_CASE("finetune refuses bad input with its message and a non-zero exit, before training") {
  TempDir dir;
  const std::string model = dir.path + "/tiny.amxqa", out = dir.path + "/new.amxqa";
  write_tiny_model(model, true);
  auto write = [&](const std::string& name, const std::string& bytes) {
    std::ofstream(dir.path + "/" + name, std::ios::binary) << bytes;
    return dir.path + "/" + name;
  };
  struct Case {
    const char* what;
    std::vector<std::string> args;
    int rc;
    std::string message;
  };
  std::string moved = read_all(kData);
  moved.replace(moved.find("\"answer_start\": 64"), 18, "\"answer_start\": 65");  // "Agnes Trevail" is at 64
  write_tiny_model(dir.path + "/no-pointer.amxqa", false);
  const std::vector<Case> cases = {
      {"missing data file", {"--data", dir.path + "/absent.json"}, 1, "cannot open"},
      {"malformed JSON", {"--data", write("bad.json", "{\"data\": [")}, 1, "bad.json: SQuAD: not valid JSON"},
      {"gzip garbage", {"--data", write("bad.json.gz", std::string("\x1f\x8b\x08\x00garbage, not deflate", 24))}, 1,
       "bad.json.gz: not a valid gzip file"},
      {"answer not at answer_start", {"--data", write("moved.json", moved)}, 1,
       "answer 'Agnes Trevail' is not at its answer_start 65"},
      {"no usable question", {"--data", write("empty.json", "{\"version\": \"v2.0\", \"data\": []}")}, 1,
       "no usable question"},
      {"invalid model", {"--model", write("junk.amxqa", std::string(4096, 'x'))}, 1, "not a valid .amxqa model"},
      {"model without a start pointer", {"--model", dir.path + "/no-pointer.amxqa"}, 1, "has no start pointer"},
      {"unwritable output", {"--out", dir.path + "/no/such/folder/new.amxqa"}, 1, "cannot write"},
      {"one paragraph only", {"--data", write("one.json", "{\"data\": [{\"title\": \"t\", \"paragraphs\": [{\"context\": "
                                                              "\"Ann is here.\", \"qas\": [{\"id\": \"1\", \"question\": "
                                                              "\"Who?\", \"answers\": [{\"text\": \"Ann\", "
                                                              "\"answer_start\": 0}]}]}]}]}")},
       1, "at least 2 are needed"},
      {"a flag's value out of range", {"--holdout", "2"}, 2, "--holdout"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.what);
    // c.args replace --model / --data / --out, or are added.
    std::vector<std::string> args = {"finetune", "--model", model, "--data", kData, "--out", out};
    for (size_t i = 0; i + 1 < c.args.size(); i += 2) {
      size_t j = 1;
      while (j < args.size() && args[j] != c.args[i]) j += 2;
      if (j < args.size()) args[j + 1] = c.args[i + 1];
      else args.insert(args.end(), {c.args[i], c.args[i + 1]});
    }
    const Run r = run_trainer(dir.path, args);
    INFO(r.err);
    CHECK(r.rc == c.rc);
    CHECK(r.err.find(c.message) != std::string::npos);
    CHECK(r.err.find("[finetune] step") == std::string::npos);  // refused before training
    CHECK(read_all(out).empty());
  }
  const Run missing = run_trainer(dir.path, {"finetune", "--model", model, "--data", kData});
  CHECK(missing.rc == 2);
  CHECK(missing.err.find("--model, --data and --out are required") != std::string::npos);
}

TEST_CASE("init.model imports f32, bf16 and int8 files, any layout, as the weights written") {
  for (const amxqa::DType dtype : {amxqa::DType::f32, amxqa::DType::bf16, amxqa::DType::i8}) {
    CAPTURE(static_cast<int>(dtype));
    TempDir dir;
    const std::string path = dir.path + "/random.amxqa";
    const amxqa::ModelSpec spec = amxqa::make_random_model("tiny", 3, dtype);
    amxqa::write_file(path, amxqa::write_model(spec));
    amxqa::train::Recipe recipe = amxqa::train::Recipe::parse("", "import-test");
    amxqa::train::set_recipe_arch(recipe, path);
    recipe.set("init.model", path);
    auto ctx = amxqa::train::make_context(recipe, dir.path + "/run", false);
    amxqa::train::import_init_model(*ctx);
    amxqa::train::TrainModel model(ctx->cfg.arch, 1);
    amxqa::train::TrainState state;
    REQUIRE(amxqa::train::load_checkpoint(ctx->out("pretrain.ckpt"), model, state));
    size_t packed = 0;
    for (const amxqa::train::Param& p : model.params()) {
      const amxqa::TensorSpec* t = nullptr;
      for (const amxqa::TensorSpec& x : spec.tensors)
        if (x.name == p.name) t = &x;
      REQUIRE(t);
      REQUIRE(t->values.size() == p.w.size());
      packed += t->layout != amxqa::Layout::plain;
      const size_t cols = t->shape.back();
      for (size_t r = 0; r < p.w.size() / cols; ++r) {
        float absmax = 0;
        for (size_t c = 0; c < cols; ++c) absmax = std::max(absmax, std::fabs(t->values[r * cols + c]));
        for (size_t c = 0; c < cols; ++c) {
          const float want = t->values[r * cols + c], got = p.w[r * cols + c];
          // f32 exact; bf16 within half an ulp (8 bits of mantissa); i8 within half a step of its row's scale.
          const float tol = t->dtype == amxqa::DType::f32    ? 0.f
                            : t->dtype == amxqa::DType::bf16 ? std::fabs(want) / 256.f
                                                             : absmax / 127.f * 0.5001f;
          if (std::fabs(got - want) > tol) FAIL_CHECK(p.name << "[" << r << "," << c << "]: " << got << " vs " << want);
        }
      }
    }
    if (dtype != amxqa::DType::f32) CHECK(packed > 0);  // vnni2 / vnni4 matrices were unpacked
  }
}

TEST_CASE("init.after: a released model stands for round 1 too, a base model only for pretraining") {
  TempDir dir;
  const std::string path = dir.path + "/random.amxqa";
  amxqa::write_file(path, amxqa::write_model(amxqa::make_random_model("tiny", 3, amxqa::DType::f32)));
  for (const char* after : {"", "sft_stop", "pretrain", "sft_qa"}) {
    CAPTURE(after);
    amxqa::train::Recipe recipe = amxqa::train::Recipe::parse("", "import-test");
    amxqa::train::set_recipe_arch(recipe, path);
    recipe.set("init.model", path);
    if (*after) recipe.set("init.after", after);
    const std::string out = dir.path + "/run-" + (*after ? after : "default");
    auto ctx = amxqa::train::make_context(recipe, out, false);
    if (std::string(after) == "sft_qa") {
      CHECK_THROWS_WITH(amxqa::train::import_init_model(*ctx), doctest::Contains("init.after"));
      continue;
    }
    amxqa::train::import_init_model(*ctx);
    CHECK(std::ifstream(ctx->out("tokenizer.tok")).good());
    CHECK(std::ifstream(ctx->out("pretrain.ckpt")).good());
    CHECK(std::ifstream(ctx->out("sft_stop.ckpt")).good() == (std::string(after) != "pretrain"));
  }
}

TEST_CASE("init.model: a base may gain question_match and start_pointer (no parameter), never lose them") {
  TempDir dir;
  const std::string base = dir.path + "/base.amxqa";  // the "tiny" preset has neither flag
  amxqa::write_file(base, amxqa::write_model(amxqa::make_random_model("tiny", 3, amxqa::DType::f32)));
  amxqa::train::Recipe recipe = amxqa::train::Recipe::parse("", "import-test");
  amxqa::train::set_recipe_arch(recipe, base);
  recipe.set("init.model", base);
  recipe.set("init.after", "pretrain");
  recipe.set("arch.question_match", "true");
  recipe.set("arch.start_pointer", "true");
  auto ctx = amxqa::train::make_context(recipe, dir.path + "/gain", false);
  amxqa::train::import_init_model(*ctx);
  CHECK(std::ifstream(ctx->out("pretrain.ckpt")).good());

  // The other way: a model with a start pointer and question match into a recipe without them.
  const std::string qa = dir.path + "/qa.amxqa";
  amxqa::ModelSpec spec = amxqa::make_random_model("tiny", 3, amxqa::DType::f32);
  spec.arch.question_match = spec.arch.start_pointer = true;
  amxqa::write_file(qa, amxqa::write_model(spec));
  for (const char* flag : {"question_match", "start_pointer"}) {
    CAPTURE(flag);
    amxqa::train::Recipe r = amxqa::train::Recipe::parse("", "import-test");
    amxqa::train::set_recipe_arch(r, qa);
    r.set("init.model", qa);
    r.set(std::string("arch.") + flag, "false");
    auto c = amxqa::train::make_context(r, dir.path + "/lose-" + flag, false);
    const std::string want = std::string("arch.") + flag + " is set in the model but not in the recipe";
    CHECK_THROWS_WITH(amxqa::train::import_init_model(*c), doctest::Contains(want.c_str()));
  }
}

TEST_CASE("init.final_norm_rms rescales the final norm's gain, and only it; 0 keeps it; out of range is refused") {
  TempDir dir;
  const std::string path = dir.path + "/base.amxqa";
  const amxqa::ModelSpec spec = amxqa::make_random_model("tiny", 3, amxqa::DType::f32);
  amxqa::write_file(path, amxqa::write_model(spec));
  auto import = [&](const char* rms, const std::string& out, amxqa::train::TrainModel* model) {
    amxqa::train::Recipe recipe = amxqa::train::Recipe::parse("", "import-test");
    amxqa::train::set_recipe_arch(recipe, path);
    recipe.set("init.model", path);
    recipe.set("init.after", "pretrain");
    if (*rms) recipe.set("init.final_norm_rms", rms);
    auto ctx = amxqa::train::make_context(recipe, dir.path + "/" + out, false);
    amxqa::train::import_init_model(*ctx);
    amxqa::train::TrainState state;
    REQUIRE(amxqa::train::load_checkpoint(ctx->out("pretrain.ckpt"), *model, state));
  };
  amxqa::train::Recipe arch_only = amxqa::train::Recipe::parse("", "import-test");
  amxqa::train::set_recipe_arch(arch_only, path);
  auto arch_ctx = amxqa::train::make_context(arch_only, dir.path + "/arch", false);
  amxqa::train::TrainModel kept(arch_ctx->cfg.arch, 1), zero(arch_ctx->cfg.arch, 1), scaled(arch_ctx->cfg.arch, 1);
  import("", "kept", &kept);
  import("0", "zero", &zero);
  import("0.5", "scaled", &scaled);
  size_t seen = 0;
  for (size_t k = 0; k < kept.params().size(); ++k) {
    const amxqa::train::Param &a = kept.params()[k], &b = zero.params()[k], &c = scaled.params()[k];
    CAPTURE(a.name);
    CHECK(a.w == b.w);  // 0 is "keep"
    if (a.name != "final_norm") {
      CHECK(a.w == c.w);
      continue;
    }
    ++seen;
    double ss = 0, ratio = c.w[0] / a.w[0];
    for (size_t i = 0; i < c.w.size(); ++i) {
      ss += double(c.w[i]) * c.w[i];
      CHECK(c.w[i] / a.w[i] == doctest::Approx(ratio).epsilon(1e-5));  // one scale, directions kept
    }
    CHECK(std::sqrt(ss / double(c.w.size())) == doctest::Approx(0.5).epsilon(1e-5));
  }
  CHECK(seen == 1);
  amxqa::train::Recipe bad = amxqa::train::Recipe::parse("", "import-test");
  amxqa::train::set_recipe_arch(bad, path);
  bad.set("init.model", path);
  bad.set("init.final_norm_rms", "-1");
  auto bad_ctx = amxqa::train::make_context(bad, dir.path + "/bad", false);
  CHECK_THROWS_WITH(amxqa::train::import_init_model(*bad_ctx), doctest::Contains("init.final_norm_rms must be in"));
}

TEST_CASE("finetune --help documents every flag") {
  TempDir dir;
  const Run r = run_trainer(dir.path, {"finetune", "--help"});
  CHECK(r.rc == 0);
  for (const char* flag : {"--model", "--data", "--out", "--dev", "--holdout", "--epochs", "--steps", "--lr",
                           "--batch-tokens", "--threads", "--seed", "--dtype", "--max-over-refusal", "--made-up",
                           "--max-tokens", "--work", "--keep-work"})
    CHECK_MESSAGE(r.out.find(std::string("  ") + flag + " ") != std::string::npos, flag);
  const Run usage = run_trainer(dir.path, {"--help"});
  CHECK(usage.out.find("finetune --model") != std::string::npos);
}

}  // TEST_SUITE
