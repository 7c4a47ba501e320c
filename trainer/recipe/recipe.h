// recipe.h — the trainer's configuration file: `key = value` lines under
// `[section]` headers, `#` comments. Keys are addressed as "section.key"
// (keys before the first header live in section "" and are addressed bare).
// Values may use ${AMXQA_DATA} (env var, default "<repo>/../shared/data") and
// ${REPO}; relative paths are resolved against the repository root.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace amxqa::train {

class Recipe {
 public:
  // Parses recipe text; throws std::runtime_error("NAME:LINE: why") on a
  // malformed line or a duplicate key.
  static Recipe parse(const std::string& text, const std::string& name = "recipe");
  // Reads and parses a file; repo_root() is found by walking up from the
  // file's folder to the folder holding schemas/MODEL.md (else the cwd).
  // A top-level `base = NAME` loads NAME.recipe from the same folder first;
  // this file's values then replace the base's, key by key.
  static Recipe load(const std::string& path, int depth = 0);

  bool has(const std::string& key) const { return values_.count(key) != 0; }
  std::string str(const std::string& key, const std::string& def = "") const;
  int64_t integer(const std::string& key, int64_t def) const;  // accepts 1e6, 2_000, 64k
  double number(const std::string& key, double def) const;
  bool boolean(const std::string& key, bool def) const;        // true/false/yes/no/on/off/1/0
  // Whitespace- or comma-separated list.
  std::vector<std::string> list(const std::string& key) const;
  // A value with ${...} expanded and, if relative, made absolute under repo_root.
  std::string path(const std::string& key, const std::string& def = "") const;
  std::vector<std::string> paths(const std::string& key) const;

  const std::string& name() const { return name_; }
  const std::string& text() const { return text_; }
  const std::string& repo_root() const { return repo_root_; }
  void set_repo_root(const std::string& r) { repo_root_ = r; }
  // Overrides (command line `--set section.key=value`).
  void set(const std::string& key, const std::string& value) {
    values_[key] = value;
    (is_run_only_key(key) ? run_keys_set_ : overridden_) = true;
  }
  // Keys that say where and how a run ran, not what it trains (model_text).
  static bool is_run_only_key(const std::string& key);
  const std::map<std::string, std::string>& values() const { return values_; }
  // The recipe as text: the original when nothing was set or inherited, else
  // every value regrouped under its section (comments are lost).
  std::string dump() const;
  // The recipe as a model file carries it (its provenance): only what defines
  // the model, so the same recipe, data and seed give the same bytes in any
  // folder and with any thread count. dump() without the keys that say where
  // and how fast a run ran (is_run_only_key: outputs.dir, threads), and every
  // path value symbolic: under the data folder ${AMXQA_DATA}/..., under the
  // checkout relative to it, elsewhere its file name alone (the data digests
  // identify the data; the folder goes to the model card). Overrides of run-only
  // keys alone (--out, --threads) keep the original text and its comments.
  std::string model_text() const;

  // ${AMXQA_DATA} / ${REPO} expansion and repo-relative resolution of one value.
  std::string expand_path(const std::string& value) const;

 private:
  std::string dump_values(bool for_model) const;  // the merged form of dump() / model_text()
  // `value` with a path made symbolic (model_text); other values unchanged.
  std::string symbolic_path(const std::string& value) const;

  std::string name_, text_, repo_root_ = ".";
  bool overridden_ = false;       // a base was merged or a model-defining key was set
  bool run_keys_set_ = false;     // a run-only key (is_run_only_key) was set
  std::map<std::string, std::string> values_;
};

// Folder holding schemas/MODEL.md at or above `start`, or "" if none.
std::string find_repo_root(const std::string& start);

}  // namespace amxqa::train
