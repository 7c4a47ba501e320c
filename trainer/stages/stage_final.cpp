// Round 4 (vocabulary fix), export of the shipped file, and its evaluation
// through the C API (scores then written into the file's provenance, and the
// model card next to it).
#include <cstdio>
#include <fstream>
#include <sstream>

#include "amxqa.h"
#include "report/model_card.h"
#include "report/metrics_plot.h"
#include "report/rounds_svg.h"
#include "stages/capi_model.h"
#include "stages/diagnostics.h"
#include "stages/eval_qa.h"
#include "stages/export_model.h"
#include "stages/rounds.h"
#include "stages/stages.h"
#include "stages/train_loop.h"

namespace amxqa::train {
namespace {

// The last trained checkpoint: what vocab-fix, export and eval ship.
void load_final(const RunContext& ctx, TrainModel& model, TrainState& state) {
  const std::string ckpt = ctx.out(stage_checkpoint("sft_abstain"));
  if (!load_checkpoint(ckpt, model, state))
    throw std::runtime_error("missing " + ckpt + " (run the SFT stages first)");
}

std::string model_path(const RunContext& ctx) { return ctx.out(ctx.cfg.model_file); }

}  // namespace

void write_final_model(RunContext& ctx, const std::string& path,
                       const std::vector<std::pair<std::string, float>>& scores) {
  const RunConfig& c = ctx.cfg;
  TrainModel model(c.arch, c.seed);
  TrainState state;
  load_final(ctx, model, state);
  RunTokenizer tok = load_run_tokenizer(ctx);
  std::vector<uint8_t> mask = load_vocab_mask(ctx.out(kVocabMaskFile), c.arch.vocab_size);
  export_model_file(path, make_model_spec(ctx, model, state, tok.data, mask, scores, "shipped model"));
}

void stage_vocab_fix(RunContext& ctx) {
  const std::string out = ctx.out(kVocabMaskFile);
  if (file_exists(out)) {
    std::fprintf(stderr, "[vocab_fix] %s exists: skipped\n", out.c_str());
    return;
  }
  const RunConfig& c = ctx.cfg;
  TrainModel model(c.arch, c.seed);
  TrainState state;
  load_final(ctx, model, state);
  std::vector<uint8_t> mask = trained_vocab_mask(model.token_seen(), c.arch.vocab_size);
  size_t banned = 0, never_seen = 0;
  for (uint32_t i = 0; i < c.arch.vocab_size; ++i) {
    banned += !mask[i];
    never_seen += i < model.token_seen().size() && model.token_seen()[i] == 0;
  }
  std::fprintf(stderr, "[vocab_fix] %zu of %u token rows never seen in training; mask bans %zu ids (incl. PAD/BOS/ANS)\n",
               never_seen, c.arch.vocab_size, banned);
  ctx.log->write({{"stage", "vocab_fix"}, {"never_seen", never_seen}, {"banned", banned}});
  RunTokenizer tok = load_run_tokenizer(ctx);
  save_vocab_mask(out + ".tmp", mask);
  evaluate_round(ctx, 4, "vocabulary fix", model, state, tok.data, mask);
  if (std::rename((out + ".tmp").c_str(), out.c_str()) != 0) throw std::runtime_error("cannot write " + out);
}

void stage_export(RunContext& ctx) {
  const std::string out = model_path(ctx);
  if (file_exists(out)) {
    std::fprintf(stderr, "[export] %s exists: skipped\n", out.c_str());
    return;
  }
  write_final_model(ctx, out, {});
  std::fprintf(stderr, "[export] wrote %s\n", out.c_str());
}

void stage_eval(RunContext& ctx) {
  const std::string out = ctx.out("eval.json");
  if (file_exists(out)) {
    std::fprintf(stderr, "[eval] %s exists: skipped\n", out.c_str());
    return;
  }
  const RunConfig& c = ctx.cfg;
  const std::string path = model_path(ctx);
  QaEval e;
  std::vector<ProbeResult> probes;
  amxqa_model_info info = amxqa_model_info_init();
  size_t session_bytes = 0, session_per_token = 0;
  {
    CapiModel m(path);
    info = m.info();
    amxqa_session_options o;
    amxqa_session_options_default(&o);
    session_bytes = amxqa_session_size(m.model(), &o);
    o.max_passage_tokens *= 2;
    session_per_token = (amxqa_session_size(m.model(), &o) - session_bytes) / (o.max_passage_tokens / 2);
    QaEvalOptions opt;
    opt.limit = c.eval_limit;
    opt.seed = c.seed;
    e = evaluate_qa(m, dev_articles(ctx), opt);
    probes = capi_probes(m, c.seed, c.probe_items);
  }
  std::fprintf(stderr, "[eval] %s\n", path.c_str());
  print_qa_eval(e, stderr);
  print_probes(probes, stderr);

  // Scores into the file: re-export the same weights with the measured numbers.
  TrainModel model(c.arch, c.seed);
  TrainState state;
  load_final(ctx, model, state);
  RunTokenizer tok = load_run_tokenizer(ctx);
  std::vector<uint8_t> mask = load_vocab_mask(ctx.out(kVocabMaskFile), c.arch.vocab_size);
  std::vector<std::pair<std::string, float>> scores = {
      {"squad_dev_em", float(e.em)},           {"squad_dev_f1", float(e.f1)},
      {"over_refusal", float(e.over_refusal)}, {"abstention", float(e.abstention)},
      {"stop_rate", float(e.stop_rate)},       {"squad_dev_n", float(e.n)}};
  for (const auto& p : probes) scores.emplace_back("probe_" + p.name, float(100 * p.accuracy));
  write_final_model(ctx, path, scores);

  LogLine j = qa_eval_json(e);
  j["model"] = path;
  j["probes"] = probes_json(probes);
  std::ofstream(out + ".tmp") << eval::dump_json(j) << "\n";
  ctx.log->write({{"stage", "eval"},
                  {"em", e.em},
                  {"f1", e.f1},
                  {"stop_rate", e.stop_rate},
                  {"over_refusal", e.over_refusal},
                  {"abstention", e.abstention}});

  // Model card.
  CardInput card;
  card.model_name = c.model_file;
  card.model_path = path;
  card.recipe_name = c.name;
  card.arch_line = "d_model " + std::to_string(info.d_model) + ", layers `" + info.layer_kinds + "`, heads " +
                   std::to_string(info.n_heads) + "/" + std::to_string(info.n_kv_heads) + " x " +
                   std::to_string(info.head_dim) + ", window " + std::to_string(info.window) + ", lin state " +
                   std::to_string(info.lin_state) + ", MLP " + std::to_string(info.d_ff) +
                   (info.moe_experts ? ", MoE E " + std::to_string(info.moe_experts) + " k " +
                                           std::to_string(info.moe_top_k) + " in " +
                                           std::to_string(info.moe_layer_count) + " layers"
                                     : std::string(", dense")) +
                   (c.arch.question_match ? ", question match" : "") +
                   (c.arch.start_pointer ? ", start pointer" : "") +
                   (c.arch.end_pointer ? ", end pointer" : "") +
                   (c.arch.no_answer_head ? ", no-answer head" : "") +
                   (c.arch.question_reread ? ", question re-read" : "") +
                   (c.arch.passage_reader ? ", passage reader" : "");
  card.dtype = std::string(info.weight_dtype) + (info.weight_bits == 7 ? " (7-bit weights)" : "");
  card.params = info.param_count;
  card.active_params = info.active_param_count;
  card.weight_bytes = info.weight_bytes;
  card.tokens_seen = state.tokens_seen;
  card.vocab = info.vocab_size;
  card.vocab_masked = info.vocab_masked;
  card.session_bytes = session_bytes;
  card.session_bytes_per_token = session_per_token;
  card.data_digests = make_model_spec(ctx, model, state, tok.data, mask, {}, "").provenance.data_digests;
  for (const RoundRow& r : read_rounds(ctx.out(kRoundsFile)))
    card.rounds.push_back({r.round, r.name, r.em, r.f1, r.stop_rate, r.over_refusal, r.abstention, r.tokens, r.wall_s});
  // The answer time names the CPU and ISA it was measured on, not "here".
  amxqa_cpu_info cpu = amxqa_cpu_info_init();
  amxqa_cpu_query(&cpu);
  char buf[768];
  std::snprintf(buf, sizeof buf,
                "**EM %.2f / F1 %.2f** on %zu dev questions; over-refusal %.1f%%; abstention on %zu made-up "
                "unanswerable pairs %.1f%%; stop-on-EOT (free mode) %.1f%%; extractive answers ending on EOT "
                "%.1f%%; %.1f ms per answer on one core of %s (%s).",
                e.em, e.f1, e.n, e.over_refusal, e.n_unanswerable, e.abstention, e.stop_rate, e.eot_share,
                e.ms_per_answer, cpu.model_name[0] ? cpu.model_name : "an unnamed CPU",
                amxqa_isa_name(cpu.best));
  card.final_scores = buf;
  {  // The calibrate stage's section and its reliability plot (stage_calibrate.cpp).
    std::ifstream cal(ctx.out(kCalibrationCardFile), std::ios::binary);
    if (cal) {
      std::stringstream text;
      text << cal.rdbuf();
      card.calibration = text.str();
      card.figures.emplace_back("reliability on the calibration set", kReliabilityFile);
    }
  }
  for (const auto& p : probes) {
    std::snprintf(buf, sizeof buf, "| %s | %.1f%% | %.1f%% | %zu |\n", p.name.c_str(), 100 * p.accuracy,
                  100 * p.chance, p.n);
    card.probes += buf;
  }
  auto cell = [](std::string s) {
    for (char& ch : s)
      if (ch == '|' || ch == '\n') ch = ' ';
    return s.size() > 80 ? s.substr(0, 77) + "..." : s;
  };
  for (const QaSample& s : e.samples)
    card.samples += "| " + cell(s.question) + " | " + cell(s.gold) + " | " + cell(s.prediction) + " | " +
                    (s.abstained ? "yes" : "no") + " |\n";
  size_t never_seen = 0;
  for (uint64_t n : model.token_seen()) never_seen += n == 0;
  double min_share = 1e9;
  std::string worst;
  for (const GainPr& g : norm_gain_prs(model))
    if (g.pr / g.n < min_share) min_share = g.pr / g.n, worst = g.name;
  std::snprintf(buf, sizeof buf,
                "- never-seen token rows: %zu of %u (masked)\n- lowest RMSNorm gain participation ratio: %s at "
                "%.2f of its width%s\n- expert insertion: no insertion performed\n",
                never_seen, c.arch.vocab_size, worst.c_str(), min_share,
                min_share < kCollapsePrShare ? " (COLLAPSE WARNING)" : "");
  card.diagnostics = buf;
  // The report's figures, next to the card: the rounds, and the training curves of every stage.
  std::ofstream(ctx.out("rounds.svg")) << render_rounds_svg(card.rounds, "post-training rounds: " + c.name);
  card.figures.emplace_back("scores by post-training round", "rounds.svg");
  std::ofstream(ctx.out("training.svg")) << eval::render_svg(read_metrics_log(ctx.out("metrics.jsonl")),
                                                       "training curves: " + c.name);
  card.figures.emplace_back("training curves", "training.svg");
  std::ofstream(ctx.out("MODEL_CARD.md")) << model_card_markdown(card);
  std::fprintf(stderr, "%s", rounds_table(card.rounds).c_str());
  std::fprintf(stderr, "[eval] model card: %s\n", ctx.out("MODEL_CARD.md").c_str());
  if (std::rename((out + ".tmp").c_str(), out.c_str()) != 0) throw std::runtime_error("cannot write " + out);
}

std::string stage_output(const RunContext& ctx, const std::string& stage) {
  if (stage == "tokenizer") return ctx.out(kTokenizerFile);
  if (stage == "vocab_fix") return ctx.out(kVocabMaskFile);
  if (stage == "export") return model_path(ctx);
  if (stage == "calibrate") return ctx.out(kCalibrationFile);
  if (stage == "eval") return ctx.out("eval.json");
  return ctx.out(stage_checkpoint(stage));
}

bool run_stage(RunContext& ctx, const std::string& name_in) {
  std::string name = name_in;
  for (char& ch : name)
    if (ch == '-') ch = '_';
  if (name == "tokenizer") stage_tokenizer(ctx);
  else if (name == "pretrain") stage_pretrain(ctx);
  else if (name == "sft_stop") stage_sft_stop(ctx);
  else if (name == "sft_qa") stage_sft_qa(ctx);
  else if (name == "sft_abstain") stage_sft_abstain(ctx);
  else if (name == "vocab_fix") stage_vocab_fix(ctx);
  else if (name == "export") stage_export(ctx);
  else if (name == "calibrate") stage_calibrate(ctx);
  else if (name == "eval") stage_eval(ctx);
  else return false;
  return true;
}

}  // namespace amxqa::train
