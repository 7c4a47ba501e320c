// run_context.h — what every stage gets: the recipe, its typed settings, the
// output folder, the JSONL log, and the conventions for stage outputs (a stage
// is done when its output file exists; `run` skips it then).
#pragma once
#include <memory>
#include <string>

#include "recipe/recipe.h"
#include "recipe/run_config.h"
#include "report/metrics_log.h"
#include "format/owned_tokenizer.h"

namespace amxqa::train {

class SftSetPrefetch;

struct RunContext {
  Recipe recipe;
  RunConfig cfg;
  bool resume = false;               // continue a stage from its partial checkpoint
  std::unique_ptr<MetricsLog> log;   // out/metrics.jsonl
  // `run` only: the rounds' sets being built ahead (stages/sft_prefetch.h).
  // Last, so it is destroyed (its thread joined) first.
  std::unique_ptr<SftSetPrefetch> prefetch;
  std::string out(const std::string& file) const { return cfg.out_dir + "/" + file; }
  RunContext();   // both defined where SftSetPrefetch is complete
  ~RunContext();
};

// Loads the recipe, applies `--set key=value` overrides and the --out folder,
// creates the folder, writes out/recipe.recipe (used by diagnose) and opens the log.
std::unique_ptr<RunContext> make_context(const std::string& recipe_path, const std::string& out_dir,
                                         bool resume, const std::vector<std::string>& overrides = {});
// The same from a recipe made in memory (`amxqa-train finetune`).
std::unique_ptr<RunContext> make_context(Recipe recipe, const std::string& out_dir, bool resume);

bool file_exists(const std::string& path);
void make_dirs(const std::string& path);

// The run's tokenizer (out/tokenizer.tok) as data and as a runtime view.
struct RunTokenizer {
  TokenizerData data;
  OwnedTokenizer owned;
};
RunTokenizer load_run_tokenizer(const RunContext& ctx);

// Stage output files.
constexpr const char* kTokenizerFile = "tokenizer.tok";
constexpr const char* kVocabMaskFile = "vocab_mask.bin";
constexpr const char* kRoundsFile = "rounds.jsonl";
constexpr const char* kCalibrationFile = "calibration.json";
constexpr const char* kCalibrationCardFile = "calibration.md";  // model card section
constexpr const char* kReliabilityFile = "reliability.svg";
std::string stage_checkpoint(const std::string& stage);  // "pretrain" → "pretrain.ckpt"

}  // namespace amxqa::train
