// test_model_provenance.cpp — a model file holds what defines the model and
// nothing of the machine that made it (schemas/amxqa.fbs "Provenance"):
//   - Recipe::model_text drops outputs.dir and threads, keeps comments, and
//     writes paths relative to the checkout or as ${AMXQA_DATA}/..., other
//     folders as the file name; --out and --threads leave the text unchanged;
//   - read_model (schemas/format/model_reader.h) gives back every field, so
//     write_model(read_model(file)) is the file again (f32, bf16, int8, 7-bit);
//   - `amxqa-train restamp` rewrites an old file's provenance (its run's
//     folder and wall time) and keeps the weights, the scales and the
//     calibration byte for byte; it refuses an invalid file;
//   - the shipped models read back whole and carry no run folder or wall time.
// The trainer twice on ci-tiny (byte-identical files from two folders and two
// thread counts) is test_trainer_e2e.slow.
#include <doctest/doctest.h>
#include <stdlib.h>

#include <string>
#include <vector>

#include "amxqa.hpp"
#include "amxqa_generated.h"
#include "format/model_reader.h"
#include "format/model_writer.h"
#include "format/random_model.h"
#include "recipe/recipe.h"
#include "run_trainer.h"

namespace {

using amxqa::train::Recipe;
using amxqa::train::test::read_all;
using amxqa::train::test::run_trainer;
using amxqa::train::test::TempDir;

const char kRecipe[] =
    "# demo — a comment that stays\n"
    "name = demo\n"
    "seed = 3\n"
    "threads = 4   # how fast, not what\n"
    "\n"
    "[data]\n"
    "files = /data/root/corpus/a.txt.gz, /repo/root/tests/data/b.txt /elsewhere/c.txt\n"
    "\n"
    "[init]\n"
    "model = /repo/root/sdk/models/default.amxqa\n"
    "\n"
    "[outputs]\n"
    "dir = /tmp/run-folder\n"
    "dtype = i8\n";

Recipe demo() {
  Recipe r = Recipe::parse(kRecipe, "demo");
  r.set_repo_root("/repo/root");
  return r;
}

std::vector<uint8_t> bytes_of(const std::string& s) { return std::vector<uint8_t>(s.begin(), s.end()); }

std::vector<uint8_t> weights_of(const std::vector<uint8_t>& file) {
  const auto* w = amxqa::fb::GetModel(file.data())->weights();
  return std::vector<uint8_t>(w->begin(), w->end());
}

}  // namespace

TEST_SUITE("unit") {

TEST_CASE("Recipe::model_text: no folder, no thread count, symbolic paths, comments kept") {
  setenv("AMXQA_DATA", "/data/root", 1);
  const std::string text = demo().model_text();
  unsetenv("AMXQA_DATA");
  INFO(text);
  CHECK(text.find("# demo — a comment that stays\n") == 0);
  CHECK(text.find("threads") == std::string::npos);
  CHECK(text.find("dir =") == std::string::npos);
  CHECK(text.find("run-folder") == std::string::npos);
  CHECK(text.find("files = ${AMXQA_DATA}/corpus/a.txt.gz, tests/data/b.txt c.txt\n") != std::string::npos);
  CHECK(text.find("model = sdk/models/default.amxqa\n") != std::string::npos);
  CHECK(text.find("seed = 3\n") != std::string::npos);
  CHECK(text.find("dtype = i8\n") != std::string::npos);
  // What the text says parses back to the same model-defining values.
  const Recipe back = Recipe::parse(text, "demo");
  CHECK(back.str("seed") == "3");
  CHECK(back.str("outputs.dtype") == "i8");
  CHECK_FALSE(back.has("outputs.dir"));
}

TEST_CASE("Recipe::model_text: --out and --threads change nothing; a model-defining override does") {
  setenv("AMXQA_DATA", "/data/root", 1);
  const std::string plain = demo().model_text();
  Recipe moved = demo();
  moved.set("outputs.dir", "/somewhere/much/longer/than/before");
  moved.set("threads", "2");
  CHECK(moved.model_text() == plain);
  // The run folder's own record (recipe.recipe) still says where it ran.
  CHECK(moved.dump().find("dir = /somewhere/much/longer/than/before") != std::string::npos);
  Recipe changed = demo();
  changed.set("pretrain.steps", "50");
  changed.set("outputs.dir", "/x");
  const std::string merged = changed.model_text();
  unsetenv("AMXQA_DATA");
  INFO(merged);
  CHECK(merged != plain);
  CHECK(merged.find("steps = 50\n") != std::string::npos);
  CHECK(merged.find("dir =") == std::string::npos);
  CHECK(merged.find("threads") == std::string::npos);
  CHECK(merged.find("model = sdk/models/default.amxqa\n") != std::string::npos);
}

TEST_CASE("read_model gives back every field: write_model(read_model(file)) is the file") {
  for (amxqa::DType dtype : {amxqa::DType::f32, amxqa::DType::bf16, amxqa::DType::i8}) {
    for (uint8_t bits : {uint8_t(8), uint8_t(7)}) {
      if (bits == 7 && dtype != amxqa::DType::i8) continue;
      amxqa::ModelSpec spec = amxqa::make_random_model("tiny", 11, dtype);
      for (auto& t : spec.tensors)
        if (t.dtype == amxqa::DType::i8) t.weight_bits = bits;
      spec.vocab_mask[7] = 0;
      spec.calibration = {true, -0.75f, "test calibration"};
      spec.provenance.recipe = "demo";
      spec.provenance.recipe_text = kRecipe;
      spec.provenance.data_digests = {"a.txt.gz fnv1a64-1MiB=0123 bytes=9"};
      spec.provenance.tokens_seen = 12345;
      spec.provenance.wall_seconds = 67.5;
      spec.provenance.scores = {{"squad_dev_em", 1.5f}};
      spec.provenance.notes = "notes";
      const std::vector<uint8_t> file = amxqa::write_model(spec);
      const amxqa::ModelSpec back = amxqa::read_model(file.data(), file.size());
      INFO("dtype " << int(dtype) << ", bits " << int(bits));
      CHECK(amxqa::write_model(back) == file);
      CHECK(back.provenance.wall_seconds == 67.5);
      CHECK(back.calibration.method == "test calibration");
      CHECK(back.vocab_mask[7] == 0);
    }
  }
  const std::vector<uint8_t> junk(256, 0x5a);
  CHECK_THROWS_AS(amxqa::read_model(junk.data(), junk.size()), std::runtime_error);
}

}  // TEST_SUITE

TEST_SUITE("integration") {

TEST_CASE("read_model on the shipped models: every field back, write_model gives the same file") {
  for (const char* name : {"default.amxqa", "qa-v2.2-bf16.amxqa", "v4-base.amxqa", "qa-v4-candidate.amxqa"}) {
    const std::string path = std::string(AMXQA_SOURCE_DIR) + "/sdk/models/" + name;
    INFO(path);
    REQUIRE(amxqa::Model::open_file(path).ok());
    const std::vector<uint8_t> file = bytes_of(read_all(path));
    const amxqa::ModelSpec spec = amxqa::read_model(file.data(), file.size());
    CHECK(amxqa::write_model(spec) == file);
    // Shipped: no run folder, no wall time (restamped 2026-12-07).
    CHECK(spec.provenance.wall_seconds == 0);
    CHECK(spec.provenance.recipe_text.find("/tmp/") == std::string::npos);
    CHECK(spec.provenance.recipe_text.find("dir =") == std::string::npos);
  }
}

TEST_CASE("amxqa-train restamp: the old file's folder and wall time go, weights and calibration stay") {
  TempDir dir;
  amxqa::ModelSpec spec = amxqa::make_random_model("tiny", 5, amxqa::DType::i8);
  spec.calibration = {true, 0.25f, "best F1 on somewhere"};
  spec.provenance.recipe = "demo";
  spec.provenance.recipe_text = kRecipe;
  spec.provenance.wall_seconds = 1234;
  spec.provenance.data_digests = {"/old/folder/a.txt.gz fnv1a64-1MiB=0123 bytes=9"};
  const std::string in = dir.path + "/old.amxqa", out = dir.path + "/new.amxqa";
  const std::vector<uint8_t> old_file = amxqa::write_model(spec);
  amxqa::write_file(in, old_file);

  const amxqa::train::test::Run r = run_trainer(dir.path, {"restamp", in, "--out", out});
  INFO(r.err);
  REQUIRE(r.rc == 0);
  const amxqa::Model m = amxqa::Model::open_file(out);  // validated on open
  REQUIRE_MESSAGE(m.ok(), m.status().message);
  const std::vector<uint8_t> new_file = bytes_of(read_all(out));
  CHECK(weights_of(new_file) == weights_of(old_file));
  const amxqa::ModelSpec got = amxqa::read_model(new_file.data(), new_file.size());
  CHECK(got.provenance.wall_seconds == 0);
  CHECK(got.provenance.recipe_text.find("/tmp/run-folder") == std::string::npos);
  CHECK(got.provenance.recipe_text.find("threads") == std::string::npos);
  CHECK(got.provenance.recipe_text.find("# demo — a comment that stays") == 0);
  CHECK(got.provenance.data_digests == std::vector<std::string>{"a.txt.gz fnv1a64-1MiB=0123 bytes=9"});
  CHECK(got.calibration.present);
  CHECK(got.calibration.no_answer_threshold == 0.25f);
  CHECK(got.calibration.method == spec.calibration.method);
  // Everything but the provenance is the old file's: put the old provenance back, get the old bytes.
  amxqa::ModelSpec again = got;
  again.provenance = amxqa::read_model(old_file.data(), old_file.size()).provenance;
  CHECK(amxqa::write_model(again) == old_file);
  // A second restamp changes nothing (in place, through a temporary file).
  REQUIRE(run_trainer(dir.path, {"restamp", out, "--out", out}).rc == 0);
  CHECK(bytes_of(read_all(out)) == new_file);

  // Refusals: an invalid file (nothing written), a missing --out.
  amxqa::write_file(dir.path + "/bad.amxqa", std::vector<uint8_t>(old_file.begin(), old_file.begin() + 100));
  const amxqa::train::test::Run bad = run_trainer(dir.path, {"restamp", dir.path + "/bad.amxqa", "--out", dir.path + "/x"});
  CHECK(bad.rc == 1);
  CHECK(bad.err.find("not a valid .amxqa model") != std::string::npos);
  CHECK(read_all(dir.path + "/x").empty());
  CHECK(run_trainer(dir.path, {"restamp", in}).rc == 2);
}

}  // TEST_SUITE
