#include "stages/run_context.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <fstream>
#include <stdexcept>

#include "stages/sft_prefetch.h"
#include "stages/tokenizer_file.h"

namespace amxqa::train {

RunContext::RunContext() = default;
RunContext::~RunContext() = default;

bool file_exists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

void make_dirs(const std::string& path) {
  for (size_t i = 1; i <= path.size(); ++i) {
    if (i == path.size() || path[i] == '/') {
      std::string p = path.substr(0, i);
      if (::mkdir(p.c_str(), 0755) != 0 && errno != EEXIST)
        throw std::runtime_error("cannot create folder " + p);
    }
  }
}

std::string stage_checkpoint(const std::string& stage) { return stage + ".ckpt"; }

std::unique_ptr<RunContext> make_context(const std::string& recipe_path, const std::string& out_dir, bool resume,
                                         const std::vector<std::string>& overrides) {
  Recipe recipe = Recipe::load(recipe_path);
  for (const auto& o : overrides) {
    size_t eq = o.find('=');
    if (eq == std::string::npos || eq == 0) throw std::runtime_error("--set expects section.key=value, got " + o);
    recipe.set(o.substr(0, eq), o.substr(eq + 1));
  }
  return make_context(std::move(recipe), out_dir, resume);
}

std::unique_ptr<RunContext> make_context(Recipe recipe, const std::string& out_dir, bool resume) {
  auto ctx = std::make_unique<RunContext>();
  ctx->recipe = std::move(recipe);
  if (!out_dir.empty()) {
    char cwd[4096];
    std::string base = ::getcwd(cwd, sizeof cwd) ? cwd : ".";
    ctx->recipe.set("outputs.dir", out_dir[0] == '/' ? out_dir : base + "/" + out_dir);
  }
  ctx->cfg = read_run_config(ctx->recipe);
  ctx->resume = resume;
  make_dirs(ctx->cfg.out_dir);
  {
    std::ofstream f(ctx->out("recipe.recipe"), std::ios::binary);
    f << ctx->recipe.dump();
  }
  ctx->log = std::make_unique<MetricsLog>(ctx->out("metrics.jsonl"));
  return ctx;
}

RunTokenizer load_run_tokenizer(const RunContext& ctx) {
  RunTokenizer t;
  t.data = load_tokenizer(ctx.out(kTokenizerFile));
  t.owned = make_owned_tokenizer(t.data, ctx.cfg.arch.vocab_size);
  return t;
}

}  // namespace amxqa::train
