#include "recipe/run_config.h"

#include "stages/unanswerable.h"

#include <stdexcept>

namespace amxqa::train {
namespace {

uint32_t u32(const Recipe& r, const std::string& key, uint32_t def) {
  int64_t v = r.integer(key, def);
  if (v < 0 || v > 0xffffffffll) throw std::runtime_error(r.name() + ": " + key + " out of range");
  return static_cast<uint32_t>(v);
}

LossKind loss_kind(const Recipe& r, const std::string& key, LossKind def) {
  if (!r.has(key)) return def;
  std::string v = r.str(key);
  if (v == "full") return LossKind::full;
  if (v == "sampled") return LossKind::sampled;
  if (v == "extractive") return LossKind::extractive;
  throw std::runtime_error(r.name() + ": " + key + " must be full, sampled or extractive");
}

// Stage settings inherit [optim] and override per stage.
StageConfig read_stage(const Recipe& r, const std::string& s, const AdamWConfig& base, uint64_t seed,
                       LossKind def_loss) {
  StageConfig c;
  c.name = s;
  c.steps = static_cast<uint64_t>(r.integer(s + ".steps", 0));
  c.batch_tokens = static_cast<uint64_t>(r.integer(s + ".batch_tokens", 4096));
  if (c.batch_tokens == 0) throw std::runtime_error(r.name() + ": " + s + ".batch_tokens must be > 0");
  c.optim = base;
  c.optim.lr = static_cast<float>(r.number(s + ".lr", base.lr));
  c.optim.warmup = u32(r, s + ".warmup", base.warmup);
  c.optim.final_lr_frac = static_cast<float>(r.number(s + ".final_lr_frac", base.final_lr_frac));
  c.optim.weight_decay = static_cast<float>(r.number(s + ".weight_decay", base.weight_decay));
  c.loss.kind = loss_kind(r, s + ".loss", def_loss);
  c.loss.sampled_pool = u32(r, s + ".sampled_pool", 1024);
  c.loss.seed = seed;
  c.loss.load_balance = static_cast<float>(r.number(s + ".load_balance", r.number("arch.load_balance", 0.01)));
  c.loss.shuffle_route_stat = r.boolean(s + ".shuffle_route_stat", r.boolean("arch.shuffle_route_stat", false));
  c.log_every = u32(r, s + ".log_every", 10);
  c.eval_every = u32(r, s + ".eval_every", 100);
  c.checkpoint_every = u32(r, s + ".checkpoint_every", 200);
  c.examples = u32(r, s + ".examples", 2000);
  c.unanswerable_frac = r.number(s + ".unanswerable_frac", 0.0);
  if (r.has(s + ".unanswerable_kinds")) c.unanswerable_kinds = parse_unanswerable_kinds(r.str(s + ".unanswerable_kinds", ""));
  c.hard_negative_frac = r.number(s + ".hard_negative_frac", 0.0);
  c.replay_frac = r.number(s + ".replay_frac", 0.0);
  c.crop_frac = r.number(s + ".crop_frac", 0.0);
  c.real_unanswerable_frac = r.number(s + ".real_unanswerable_frac", 0.0);
  c.real_provenance = r.str(s + ".real_provenance", "");
  c.cloze_frac = r.number(s + ".cloze_frac", 0.0);
  c.cloze_twin_frac = r.number(s + ".cloze_twin_frac", 0.0);
  c.line_paragraphs = r.boolean(s + ".line_paragraphs", false);
  const std::string compute = r.str(s + ".compute", r.str("optim.compute", "f32"));
  if (compute != "f32" && compute != "bf16")
    throw std::runtime_error(r.name() + ": " + s + ".compute must be f32 or bf16");
  c.bf16_compute = compute == "bf16";
  if (c.unanswerable_frac < 0 || c.unanswerable_frac > 1 || c.replay_frac < 0 || c.replay_frac > 1 ||
      c.crop_frac < 0 || c.crop_frac > 1 || c.hard_negative_frac < 0 || c.hard_negative_frac > 1 ||
      c.real_unanswerable_frac < 0 || c.real_unanswerable_frac > 1 || c.cloze_frac < 0 || c.cloze_frac > 1 ||
      c.cloze_twin_frac < 0 || c.cloze_twin_frac > 1)
    throw std::runtime_error(r.name() + ": " + s + " fractions must lie in [0, 1]");
  return c;
}

}  // namespace

std::string layer_kinds_string(const ArchConfig& a) {
  std::string s;
  for (size_t i = 0; i < a.layer_kinds.size(); ++i) {
    if (i) s += ' ';
    s += a.layer_kinds[i] == kLayerLin ? "lin" : "swa";
  }
  return s;
}

uint64_t expert_params(const ArchConfig& a) { return 2ull * a.d_model * a.moe_d_ff; }

double budget_law_max_experts(const ArchConfig& a, double planned_tokens, double tau) {
  uint64_t pe = expert_params(a);
  if (pe == 0 || tau <= 0) return 0;
  return planned_tokens * a.moe_top_k / (tau * static_cast<double>(pe));
}

RunConfig read_run_config(const Recipe& r) {
  RunConfig c;
  c.name = r.str("name", r.name());
  c.seed = static_cast<uint64_t>(r.integer("seed", 1));
  c.threads = u32(r, "threads", 1);
  if (c.threads == 0 || c.threads > 256) throw std::runtime_error(r.name() + ": threads must be 1..256");

  ArchConfig& a = c.arch;
  a.d_model = u32(r, "arch.d_model", a.d_model);
  std::vector<std::string> kinds = r.list("arch.layer_kinds");
  a.n_layers = u32(r, "arch.n_layers", kinds.empty() ? a.n_layers : static_cast<uint32_t>(kinds.size()));
  if (kinds.empty()) for (uint32_t i = 0; i < a.n_layers; ++i) kinds.push_back(i % 2 ? "swa" : "lin");
  if (kinds.size() != a.n_layers) throw std::runtime_error(r.name() + ": arch.layer_kinds needs n_layers entries");
  a.layer_kinds.clear();
  for (const auto& k : kinds) {
    if (k == "lin") a.layer_kinds.push_back(kLayerLin);
    else if (k == "swa") a.layer_kinds.push_back(kLayerSwa);
    else throw std::runtime_error(r.name() + ": arch.layer_kinds entry '" + k + "' is not lin/swa");
  }
  a.n_heads = u32(r, "arch.n_heads", a.n_heads);
  a.n_kv_heads = u32(r, "arch.n_kv_heads", a.n_kv_heads);
  a.head_dim = u32(r, "arch.head_dim", a.head_dim);
  a.window = u32(r, "arch.window", a.window);
  a.lin_state = u32(r, "arch.lin_state", a.lin_state);
  a.d_ff = u32(r, "arch.d_ff", a.d_ff);
  a.moe_experts = u32(r, "arch.moe_experts", 0);
  a.moe_top_k = u32(r, "arch.moe_top_k", a.moe_experts ? 2 : 0);
  a.moe_d_ff = u32(r, "arch.moe_d_ff", a.moe_experts ? a.d_ff : 0);
  a.moe_route_block = u32(r, "arch.moe_route_block", a.moe_route_block);
  a.moe_route_window = u32(r, "arch.moe_route_window", a.moe_route_window);
  a.moe_layers.clear();
  for (const auto& s : r.list("arch.moe_layers")) {
    char* end = nullptr;
    unsigned long v = std::strtoul(s.c_str(), &end, 10);
    if (*end || v >= a.n_layers || (!a.moe_layers.empty() && v <= a.moe_layers.back()))
      throw std::runtime_error(r.name() + ": arch.moe_layers must be increasing layer indices");
    a.moe_layers.push_back(static_cast<uint32_t>(v));
  }
  if (a.moe_experts == 0) a.moe_layers.clear();
  a.vocab_size = u32(r, "arch.vocab_size", a.vocab_size);
  a.rope_theta = static_cast<float>(r.number("arch.rope_theta", a.rope_theta));
  a.norm_eps = static_cast<float>(r.number("arch.norm_eps", a.norm_eps));
  a.question_match = r.boolean("arch.question_match", false);
  a.start_pointer = r.boolean("arch.start_pointer", false);
  a.end_pointer = r.boolean("arch.end_pointer", false);
  if (a.end_pointer && !a.start_pointer)
    throw std::runtime_error(r.name() + ": arch.end_pointer needs arch.start_pointer");
  a.no_answer_head = r.boolean("arch.no_answer_head", false);  // MODEL.md "No-answer head"
  a.question_reread = r.boolean("arch.question_reread", false);  // MODEL.md "Question re-read"
  if (a.no_answer_head && !a.start_pointer)
    throw std::runtime_error(r.name() + ": arch.no_answer_head needs arch.start_pointer");
  a.passage_reader = r.boolean("arch.passage_reader", false);  // MODEL.md "Passage reader"
  if (a.passage_reader && !a.start_pointer)
    throw std::runtime_error(r.name() + ": arch.passage_reader needs arch.start_pointer");
  if (a.d_model == 0 || a.n_heads == 0 || a.n_kv_heads == 0 || a.n_heads % a.n_kv_heads || a.head_dim == 0 ||
      a.vocab_size <= kMergeBase)
    throw std::runtime_error(r.name() + ": [arch] is inconsistent (zero size, heads % kv_heads, or vocab <= 261)");

  c.tokenizer_files = r.paths("tokenizer.files");
  c.tokenizer_max_bytes = static_cast<uint64_t>(r.integer("tokenizer.max_bytes", 4000000));
  c.data_files = r.paths("data.files");
  if (c.tokenizer_files.empty()) c.tokenizer_files = c.data_files;
  c.data_max_bytes = static_cast<uint64_t>(r.integer("data.max_bytes", 0));
  c.seq_len = u32(r, "data.seq_len", 1024);
  if (c.seq_len < 8) throw std::runtime_error(r.name() + ": data.seq_len must be >= 8");
  c.val_pieces = u32(r, "data.val_pieces", 64);
  c.min_doc_bytes = u32(r, "data.min_doc_bytes", 0);
  c.tau = r.number("data.tau", 10.0);

  c.squad_train = r.path("squad.train", "${AMXQA_DATA}/squad/train-v1.1.json.gz");
  c.squad_dev = r.path("squad.dev", "${AMXQA_DATA}/squad/dev-v1.1-open.json.gz");

  AdamWConfig base;
  base.lr = static_cast<float>(r.number("optim.lr", base.lr));
  base.beta1 = static_cast<float>(r.number("optim.beta1", base.beta1));
  base.beta2 = static_cast<float>(r.number("optim.beta2", base.beta2));
  base.eps = static_cast<float>(r.number("optim.eps", base.eps));
  base.weight_decay = static_cast<float>(r.number("optim.weight_decay", base.weight_decay));
  base.clip = static_cast<float>(r.number("optim.clip", base.clip));
  base.warmup = u32(r, "optim.warmup", base.warmup);
  base.final_lr_frac = static_cast<float>(r.number("optim.final_lr_frac", base.final_lr_frac));

  c.pretrain = read_stage(r, "pretrain", base, c.seed, LossKind::full);
  c.sft_stop = read_stage(r, "sft_stop", base, c.seed + 1, LossKind::full);
  c.sft_qa = read_stage(r, "sft_qa", base, c.seed + 2, LossKind::extractive);
  c.sft_abstain = read_stage(r, "sft_abstain", base, c.seed + 3, LossKind::extractive);
  if (!r.has("sft_abstain.unanswerable_frac")) c.sft_abstain.unanswerable_frac = 0.3;

  c.eval_limit = u32(r, "eval.limit", 500);
  c.round_eval_limit = u32(r, "eval.round_limit", 100);
  c.probe_items = u32(r, "eval.probe_items", 100);

  c.out_dir = r.path("outputs.dir", "trainer/runs/" + c.name);
  c.model_file = r.str("outputs.model", c.name + ".amxqa");
  std::string dt = r.str("outputs.dtype", "f32");
  if (dt == "f32") c.export_dtype = DType::f32;
  else if (dt == "bf16") c.export_dtype = DType::bf16;
  else if (dt == "i8" || dt == "int8") c.export_dtype = DType::i8;
  else if (dt == "i7" || dt == "int7") c.export_dtype = DType::i8, c.export_weight_bits = 7;
  else throw std::runtime_error(r.name() + ": outputs.dtype must be f32, bf16, i8 or i7");
  return c;
}

}  // namespace amxqa::train
