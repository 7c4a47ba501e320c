// `amxqa-train eval`: scores a model FILE through the public C API and prints
// the generations next to the score (paper lesson 4), then the probes.
#include <unistd.h>

#include <algorithm>
#include <cstdio>

#include "cli/args.h"
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
  Args a = parse_args(argc, argv, 2, {"no-vocab-mask"}, {"model", "data", "limit", "show", "probes", "seed"});
  if (a.help) {
    std::fputs(kHelp, stdout);
    return 0;
  }
  if (!a.has("model") || !a.positional.empty()) {
    std::fputs(kHelp, stderr);
    return 2;
  }
  CapiModel model(a.get("model"));
  amxqa_model_info info = model.info();
  std::printf("model %s: d_model %u, layers [%s], vocab %u (%u masked), %s weights, %llu params, recipe '%s', "
              "%llu tokens trained\n",
              a.get("model").c_str(), info.d_model, info.layer_kinds, info.vocab_size, info.vocab_masked,
              info.weight_dtype, static_cast<unsigned long long>(info.param_count), info.recipe,
              static_cast<unsigned long long>(info.tokens_seen));
  for (const auto& s : model.scores()) std::printf("  stored score %s = %.3f\n", s.first.c_str(), s.second);

  const std::string data = a.get("data", default_dev_path());
  std::vector<SquadArticle> dev = load_squad(data);
  QaEvalOptions opt;
  opt.limit = static_cast<size_t>(a.get_int("limit", 500));
  opt.show = static_cast<size_t>(a.get_int("show", 10));
  opt.seed = static_cast<uint64_t>(a.get_int("seed", 1));
  opt.stop_limit = std::min<size_t>(opt.limit ? opt.limit : 200, 200);
  opt.use_vocab_mask = !a.has("no-vocab-mask");
  std::printf("data %s: %zu questions\n", data.c_str(), count_questions(dev));
  QaEval e = evaluate_qa(model, dev, opt);
  print_qa_eval(e, stdout);
  size_t items = static_cast<size_t>(a.get_int("probes", 100));
  if (items) print_probes(capi_probes(model, opt.seed, items), stdout);
  return 0;
}

}  // namespace amxqa::train
