// `amxqa-train eval`: scores a model FILE through the public C API and prints
// the generations next to the score (paper lesson 4), then the probes.
#include <unistd.h>

#include <algorithm>
#include <cstdio>

#include "cli/commands.h"
#include "recipe/recipe.h"
#include "stages/capi_model.h"
#include "stages/eval_qa.h"

namespace amxqa::train {
namespace {

const char kHelp[] =
    "usage: amxqa-train eval --model M.amxqa [--data squad.json.gz] [--limit N] [--show N]\n"
    "                        [--probes N] [--no-vocab-mask] [--seed S]\n"
    "\n"
    "Opens the model with amxqa_model_open, answers SQuAD questions with amxqa_answer and prints\n"
    "EM/F1 (standard SQuAD normalisation), over-refusal, abstention on made-up unanswerable pairs,\n"
    "the free-mode stop-on-EOT rate, ~10 generations (question, gold, prediction, abstained) and\n"
    "the synthetic probes (induction, positional shift, two-digit addition) with their chance levels.\n"
    "\n"
    "  --data     SQuAD v1.1 json(.gz); default ${AMXQA_DATA}/squad/dev-v1.1-open.json.gz\n"
    "  --limit    answerable questions (default 500, 0 = all)\n"
    "  --show     generations printed (default 10)\n"
    "  --probes   items per probe (default 100, 0 = none)\n";

std::string default_dev_path() {
  std::string root = find_repo_root(".");
  if (root.empty()) {
    char exe[4096];
    ssize_t n = ::readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
      exe[n] = 0;
      std::string e(exe);
      root = find_repo_root(e.substr(0, e.find_last_of('/')));
    }
  }
  Recipe r = Recipe::parse("", "eval");
  r.set_repo_root(root.empty() ? "." : root);
  return r.expand_path("${AMXQA_DATA}/squad/dev-v1.1-open.json.gz");
}

}  // namespace

int cmd_eval(int argc, char** argv) {
  command_line::App app("amxqa-train eval");
  std::string model_path, data;
  std::vector<std::string> extra;  // any positional is a usage error, answered with the help
  size_t limit = 500, show = 10, probes = 100;
  uint64_t seed = 1;
  bool no_vocab_mask = false;
  app.add_option("--model", model_path);
  app.add_option("--data", data);
  app.add_unsigned("--limit", limit);
  app.add_unsigned("--show", show);
  app.add_unsigned("--probes", probes);
  app.add_unsigned("--seed", seed);
  app.add_flag("--no-vocab-mask", no_vocab_mask);
  app.add_option("ARGS", extra);
  if (parse_command(app, argc, argv)) {
    std::fputs(kHelp, stdout);
    return 0;
  }
  if (model_path.empty() || !extra.empty()) {
    std::fputs(kHelp, stderr);
    return 2;
  }
  CapiModel model(model_path);
  amxqa_model_info info = model.info();
  std::printf("model %s: d_model %u, layers [%s], vocab %u (%u masked), %s weights, %llu params, recipe '%s', "
              "%llu tokens trained\n",
              model_path.c_str(), info.d_model, info.layer_kinds, info.vocab_size, info.vocab_masked,
              info.weight_dtype, static_cast<unsigned long long>(info.param_count), info.recipe,
              static_cast<unsigned long long>(info.tokens_seen));
  for (const auto& s : model.scores()) std::printf("  stored score %s = %.3f\n", s.first.c_str(), s.second);

  if (data.empty()) data = default_dev_path();
  std::vector<eval::SquadArticle> dev = eval::load_squad(data);
  QaEvalOptions opt;
  opt.limit = limit;
  opt.show = show;
  opt.seed = seed;
  opt.stop_limit = std::min<size_t>(opt.limit ? opt.limit : 200, 200);
  opt.use_vocab_mask = !no_vocab_mask;
  std::printf("data %s: %zu questions\n", data.c_str(), eval::count_questions(dev));
  QaEval e = evaluate_qa(model, dev, opt);
  print_qa_eval(e, stdout);
  if (probes) print_probes(capi_probes(model, opt.seed, probes), stdout);
  return 0;
}

}  // namespace amxqa::train
