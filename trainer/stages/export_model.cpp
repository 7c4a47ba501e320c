#include "stages/export_model.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "gz_text.h"
#include "no_answer_sweep.h"
#include "stages/train_loop.h"

namespace amxqa::train {

void apply_special_rule(std::vector<uint8_t>& mask) {
  if (mask.size() <= kAbstain) return;
  mask[kPad] = mask[kBos] = mask[kAns] = 0;
  mask[kEot] = mask[kAbstain] = 1;
}

std::vector<uint8_t> open_vocab_mask(uint32_t vocab_size) {
  std::vector<uint8_t> m(vocab_size, 1);
  apply_special_rule(m);
  return m;
}

std::vector<uint8_t> trained_vocab_mask(const std::vector<uint64_t>& token_seen, uint32_t vocab_size) {
  std::vector<uint8_t> m(vocab_size, 0);
  for (uint32_t i = 0; i < vocab_size && i < token_seen.size(); ++i) m[i] = token_seen[i] > 0;
  apply_special_rule(m);
  return m;
}

void save_vocab_mask(const std::string& path, const std::vector<uint8_t>& mask) {
  std::ofstream f(path, std::ios::binary);
  f.write(reinterpret_cast<const char*>(mask.data()), static_cast<std::streamsize>(mask.size()));
  if (!f) throw std::runtime_error("cannot write " + path);
}

std::vector<uint8_t> load_vocab_mask(const std::string& path, uint32_t vocab_size) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw std::runtime_error("cannot read " + path + " (run vocab-fix first)");
  std::vector<uint8_t> m(vocab_size);
  f.read(reinterpret_cast<char*>(m.data()), vocab_size);
  if (f.gcount() != static_cast<std::streamsize>(vocab_size) || f.peek() != EOF)
    throw std::runtime_error(path + ": wrong size for vocab " + std::to_string(vocab_size));
  for (uint8_t& b : m) b = b ? 1 : 0;
  return m;
}

ModelSpec make_model_spec(const RunContext& ctx, const TrainModel& model, const TrainState& state,
                          const TokenizerData& tok, const std::vector<uint8_t>& mask,
                          const std::vector<std::pair<std::string, float>>& scores, const std::string& notes) {
  ModelSpec spec;
  spec.arch = model.arch();
  spec.tokenizer = tok;
  spec.vocab_mask = mask;
  spec.tensors = model.to_tensors(ctx.cfg.export_dtype, ctx.cfg.export_weight_bits);
  Provenance& p = spec.provenance;
  p.recipe = ctx.cfg.name;
  // What defines the model only: no output folder, thread count or wall time
  // (the model card beside the file has those), so the same recipe, data and
  // seed give the same bytes in any folder with any --threads.
  p.recipe_text = ctx.recipe.model_text();
  std::vector<std::string> files = ctx.cfg.data_files;
  for (const auto& f : ctx.cfg.tokenizer_files)
    if (std::find(files.begin(), files.end(), f) == files.end()) files.push_back(f);
  files.push_back(ctx.cfg.squad_train);
  for (const auto& f : files) p.data_digests.push_back(eval::data_digest(f));
  p.tokens_seen = state.tokens_seen;
  p.scores = scores;
  // The calibrate stage's choice (stage_calibrate.cpp), once it has run.
  std::ifstream cal(ctx.out(kCalibrationFile), std::ios::binary);
  if (cal) {
    std::stringstream text;
    text << cal.rdbuf();
    std::string error;
    if (!eval::parse_threshold_json(text.str(), &spec.calibration.no_answer_threshold, &error,
                                    &spec.calibration.method))
      throw std::runtime_error(ctx.out(kCalibrationFile) + ": " + error);
    spec.calibration.present = true;
  }
  p.notes = notes + (notes.empty() ? "" : "; ") +
            "data digests: FNV-1a 64 over the first MiB of each raw (compressed) file, plus its size";
  return spec;
}

void export_model_file(const std::string& path, const ModelSpec& spec) {
  std::vector<uint8_t> bytes = write_model(spec);
  std::string tmp = path + ".tmp";
  write_file(tmp, bytes);
  if (std::rename(tmp.c_str(), path.c_str()) != 0) throw std::runtime_error("cannot write " + path);
}

}  // namespace amxqa::train
