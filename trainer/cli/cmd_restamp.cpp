// `amxqa-train restamp MODEL --out NEW`: rewrites an existing model file's
// provenance by the rule every export now follows (stages/export_model.h): the
// recipe as Recipe::model_text() gives it (no outputs.dir, no threads, paths
// symbolic), no wall time, data digests without folders. Everything else (weights
// and their scales, tokenizer, vocabulary mask, calibration, scores, notes) is
// copied as the file stores it (read_model / write_model with stored tensors),
// so the answers stay the same bytes. For models exported before 2026-12-07,
// which carried the run's folder and wall time, without retraining them.
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "amxqa_generated.h"
#include "cli/commands.h"
#include "format/model_reader.h"
#include "format/model_writer.h"
#include "recipe/recipe.h"
#include "stages/import_model.h"

namespace amxqa::train {
namespace {

const char kHelp[] =
    "usage: amxqa-train restamp MODEL.amxqa --out NEW.amxqa\n"
    "\nRewrites the model's provenance as every export now writes it: the embedded recipe without\n"
    "outputs.dir and threads and with paths relative or ${AMXQA_DATA}/..., no wall time, data digests\n"
    "without folders. Weights, scales, tokenizer, vocabulary mask, calibration and scores are copied\n"
    "byte for byte; the output is validated by opening it and its weights compared with the input's.\n"
    "NEW may be MODEL (written through a temporary file).\n";

// The weights blob of a verified file image.
std::vector<uint8_t> weights_of(const std::vector<uint8_t>& file) {
  const auto* w = fb::GetModel(file.data())->weights();
  return w ? std::vector<uint8_t>(w->begin(), w->end()) : std::vector<uint8_t>();
}

// "/folder/file.gz fnv1a64-..." -> "file.gz fnv1a64-...".
std::string digest_without_folder(const std::string& d) {
  const size_t space = d.find(' ');
  const size_t slash = d.rfind('/', space);
  return slash == std::string::npos ? d : d.substr(slash + 1);
}

}  // namespace

int cmd_restamp(int argc, char** argv) {
  command_line::App app("amxqa-train restamp");
  std::vector<std::string> models;
  std::string out;
  app.add_option("MODEL", models);
  app.add_option("--out", out);
  if (parse_command(app, argc, argv)) {
    std::fputs(kHelp, stdout);
    return 0;
  }
  if (models.size() != 1 || out.empty()) {
    std::fputs(kHelp, stderr);
    return 2;
  }
  const std::vector<uint8_t> before = read_verified_model(models[0]);
  ModelSpec spec = read_model(before.data(), before.size());
  Provenance& p = spec.provenance;
  Recipe recipe = Recipe::parse(p.recipe_text, p.recipe.empty() ? "recipe" : p.recipe);
  const std::string root = find_repo_root(".");
  if (!root.empty()) recipe.set_repo_root(root);
  const std::string old_text = p.recipe_text;
  const double old_wall = p.wall_seconds;
  p.recipe_text = recipe.model_text();
  p.wall_seconds = 0;
  for (std::string& d : p.data_digests) d = digest_without_folder(d);

  const std::string tmp = out + ".tmp";
  write_file(tmp, write_model(spec));
  std::vector<uint8_t> after;
  try {
    after = read_verified_model(tmp);
  } catch (...) {
    std::remove(tmp.c_str());
    throw;
  }
  if (weights_of(after) != weights_of(before)) {
    std::remove(tmp.c_str());
    throw std::runtime_error("restamp: the rewritten weights differ from " + models[0] + " (not written)");
  }
  if (std::rename(tmp.c_str(), out.c_str()) != 0) throw std::runtime_error("cannot write " + out);
  std::fprintf(stderr, "restamp: %s -> %s: recipe text %zu -> %zu bytes, wall time %.0f s -> none; weights (%zu bytes) "
               "unchanged\n", models[0].c_str(), out.c_str(), old_text.size(), p.recipe_text.size(), old_wall,
               weights_of(after).size());
  return 0;
}

}  // namespace amxqa::train
