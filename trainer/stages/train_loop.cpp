#include "stages/train_loop.h"

#include <algorithm>
#include <cmath>
#include <csignal>
#include <cstdlib>
#include <cstdio>
#include <future>
#include <sstream>

#include "stages/diagnostics.h"
#include "stages/greedy.h"

namespace amxqa::train {
namespace {

volatile std::sig_atomic_t g_interrupt = 0;
extern "C" void on_sigint(int) { g_interrupt = 1; }

LossOptions options_for(const Example& ex, const LossOptions& base) {
  LossOptions o = base;
  o.passage_begin = ex.passage_begin;
  o.passage_end = ex.passage_end;
  o.answer_begin = ex.answer_begin;
  // Documents without a passage (pretraining replay) cannot use the extractive softmax.
  if (o.kind == LossKind::extractive && ex.passage_end <= ex.passage_begin) o.kind = LossKind::full;
  return o;
}

uint64_t predicted_positions(const Example& ex) {
  uint64_t n = 0;
  for (size_t t = 0; t + 1 < ex.tokens.size() && t < ex.mask.size(); ++t) n += ex.mask[t] != 0;
  return n;
}

double to_double(const std::string& s) { return s.empty() ? 0.0 : std::strtod(s.c_str(), nullptr); }

// One step's documents, copied out of the source (a source may hand out one
// reused slot, as PieceSource does), and the cursor after them.
struct Batch {
  std::vector<Example> docs;
  uint64_t cursor_end = 0, tokens = 0, predicted = 0;
};

// Whole documents from `cursor` until the step holds batch_tokens (at least one).
Batch read_batch(DocSource& source, uint64_t cursor, uint64_t batch_tokens) {
  Batch b;
  while (b.docs.empty() || b.tokens < batch_tokens) {
    const Example& ex = source.at(cursor++);
    if (ex.tokens.size() < 2) continue;
    b.docs.push_back(ex);
    b.tokens += ex.tokens.size();
    b.predicted += predicted_positions(ex);
    if (b.docs.size() > 100000) break;  // degenerate sources
  }
  b.cursor_end = cursor;
  return b;
}

StepDoc step_doc(const Example& ex, const LossOptions& o) {
  return StepDoc{ex.tokens.data(), ex.tokens.size(), ex.mask.data(), o};
}

}  // namespace

bool interrupted() { return g_interrupt != 0; }

std::string extra_get(const std::string& extra, const std::string& key) {
  std::istringstream in(extra);
  std::string line;
  while (std::getline(in, line))
    if (line.size() > key.size() && line.compare(0, key.size(), key) == 0 && line[key.size()] == '=')
      return line.substr(key.size() + 1);
  return "";
}

void extra_set(std::string& extra, const std::string& key, const std::string& value) {
  std::istringstream in(extra);
  std::string line, out;
  while (std::getline(in, line))
    if (!(line.size() > key.size() && line.compare(0, key.size(), key) == 0 && line[key.size()] == '='))
      out += line + "\n";
  extra = out + key + "=" + value + "\n";
}

bool begin_stage(const RunContext& ctx, const std::string& stage, const std::string& partial_ckpt,
                 const std::string& prev_ckpt, TrainModel& model, TrainState& state) {
  if (ctx.resume && load_checkpoint(partial_ckpt, model, state)) {
    if (extra_get(state.extra, "stage") != stage)
      throw std::runtime_error(partial_ckpt + " belongs to stage '" + extra_get(state.extra, "stage") + "'");
    std::fprintf(stderr, "[%s] resuming at step %llu (cursor %llu)\n", stage.c_str(),
                 static_cast<unsigned long long>(state.step), static_cast<unsigned long long>(state.data_cursor));
    return true;
  }
  if (!ctx.resume && file_exists(partial_ckpt))
    std::fprintf(stderr, "[%s] note: %s exists; starting fresh (pass --resume to continue it)\n", stage.c_str(),
                 partial_ckpt.c_str());
  if (!prev_ckpt.empty()) {
    if (!load_checkpoint(prev_ckpt, model, state))
      throw std::runtime_error("stage " + stage + " needs " + prev_ckpt + " (run the previous stage first)");
    // A new stage: new schedule and fresh AdamW moments (bias correction restarts at step 1).
    for (Param& p : model.params()) {
      std::fill(p.m.begin(), p.m.end(), 0.f);
      std::fill(p.v.begin(), p.v.end(), 0.f);
    }
  }
  state.step = 0;
  state.data_cursor = 0;
  state.rng_state = ctx.cfg.seed;
  extra_set(state.extra, "stage", stage);
  extra_set(state.extra, "stage_tokens", "0");
  return false;
}

double validation_loss(TrainModel& m, const std::vector<Example>& docs, const LossOptions& base,
                       StepWorkers* workers) {
  std::vector<StepDoc> step;
  for (const Example& ex : docs) step.push_back(step_doc(ex, options_for(ex, base)));
  std::vector<StepStats> stats;
  if (workers) {
    stats = workers->evaluate(step);
  } else {
    for (const StepDoc& d : step) stats.push_back(m.evaluate(d.tokens, d.n, d.mask, d.opt));
  }
  double sum = 0;  // in document order, whichever thread evaluated them
  uint64_t n = 0;
  for (const StepStats& s : stats) {
    sum += s.loss_sum;
    n += s.predicted;
  }
  return n ? sum / n : NAN;
}

LoopResult train_loop(RunContext& ctx, const std::string& stage, TrainModel& model, TrainState& state,
                      DocSource& source, const LoopSpec& spec) {
  const StageConfig& cfg = *spec.cfg;
  LoopResult res;
  if (set_bf16_compute(cfg.bf16_compute) != cfg.bf16_compute)
    std::fprintf(stderr, "[%s] compute = bf16 needs AVX512-BF16; this CPU trains in f32\n",
                 stage.c_str());
  g_interrupt = 0;
  auto old_handler = std::signal(SIGINT, on_sigint);

  uint64_t stage_tokens = static_cast<uint64_t>(to_double(extra_get(state.extra, "stage_tokens")));
  const double wall0 = to_double(extra_get(state.extra, "wall"));
  Progress progress(stage, cfg.steps, state.step);
  auto checkpoint = [&](const std::string& path) {
    extra_set(state.extra, "stage_tokens", std::to_string(stage_tokens));
    extra_set(state.extra, "wall", std::to_string(wall0 + progress.elapsed()));
    save_checkpoint(path, model, state);
  };

  // Interval accumulators for the JSONL log.
  double int_loss = 0, int_aux = 0, int_norm = 0;
  uint64_t int_pred = 0, int_correct = 0, int_steps = 0;
  std::vector<uint64_t> int_experts;
  double last_loss = NAN;

  StepWorkers workers(model, ctx.cfg.threads);
  if (workers.threads() > 1)
    std::fprintf(stderr, "[%s] %u threads (the same weights as 1 thread)\n", stage.c_str(), workers.threads());
  // The next step's documents are read on another thread while this step computes.
  std::future<Batch> next;
  auto prefetch = [&](uint64_t cursor) {
    next = std::async(std::launch::async, read_batch, std::ref(source), cursor, cfg.batch_tokens);
  };
  if (state.step < cfg.steps) prefetch(state.data_cursor);
  while (state.step < cfg.steps && !g_interrupt) {
    const Batch batch = next.get();
    state.data_cursor = batch.cursor_end;
    if (state.step + 1 < cfg.steps) prefetch(batch.cursor_end);
    const uint64_t step_tokens = batch.tokens, step_pred = batch.predicted;
    std::vector<StepDoc> docs;
    for (const Example& ex : batch.docs) {
      LossOptions o = options_for(ex, cfg.loss);
      o.seed = cfg.loss.seed ^ (state.step * 0x9e3779b97f4a7c15ull);
      o.ce_scale = step_pred ? 1.f / static_cast<float>(step_pred) : 1.f;
      o.aux_scale = 1.f / static_cast<float>(batch.docs.size());
      docs.push_back(step_doc(ex, o));
    }
    const std::vector<StepStats> stats = workers.forward_backward(docs);
    double step_loss = 0, step_aux = 0;
    uint64_t step_predicted = 0, step_correct = 0;
    for (const StepStats& s : stats) {  // in document order
      step_loss += s.loss_sum;
      step_predicted += s.predicted;
      step_correct += s.correct;
      step_aux += s.aux_loss / batch.docs.size();
      if (int_experts.size() < s.expert_counts.size()) int_experts.resize(s.expert_counts.size(), 0);
      for (size_t i = 0; i < s.expert_counts.size(); ++i) int_experts[i] += s.expert_counts[i];
    }
    ++state.step;
    const float lr = lr_at(cfg.optim, state.step, cfg.steps);
    const double gnorm = workers.adamw_step(cfg.optim, state.step, lr);  // on the step's threads
    state.tokens_seen += step_tokens;
    stage_tokens += step_tokens;
    last_loss = step_predicted ? step_loss / step_predicted : NAN;

    int_loss += step_loss;
    int_pred += step_predicted;
    int_correct += step_correct;
    int_aux += step_aux;
    int_norm += gnorm;
    ++int_steps;
    progress.update(state.step, stage_tokens, last_loss, lr, state.step == cfg.steps);

    const bool last = state.step == cfg.steps;
    if ((cfg.log_every && state.step % cfg.log_every == 0) || last) {
      LogLine j = {{"stage", stage},
                   {"step", state.step},
                   {"tokens", stage_tokens},
                   {"total_tokens", state.tokens_seen},
                   {"loss", int_pred ? int_loss / int_pred : NAN},
                   {"acc", int_pred ? double(int_correct) / int_pred : NAN},
                   {"lr", double(lr)},
                   {"grad_norm", int_norm / int_steps},
                   {"tok_s", progress.tokens_per_second()},
                   {"elapsed_s", progress.elapsed()}};
      if (ctx.cfg.arch.moe_experts) {
        j["aux"] = int_aux / int_steps;
        j["expert_pr"] = expert_prs(int_experts, ctx.cfg.arch.moe_experts);
      }
      double min_share = 1e9;
      for (const GainPr& g : norm_gain_prs(model)) min_share = std::min(min_share, g.pr / std::max<size_t>(1, g.n));
      j["norm_pr_min_share"] = min_share;
      ctx.log->write(j);
      int_loss = int_aux = int_norm = 0;
      int_pred = int_correct = int_steps = 0;
      int_experts.assign(int_experts.size(), 0);
    }
    if ((cfg.eval_every && state.step % cfg.eval_every == 0) || last) {
      LogLine j = {{"stage", stage}, {"step", state.step}, {"tokens", stage_tokens}};
      if (spec.val && !spec.val->empty()) {
        res.val_loss = validation_loss(model, *spec.val, cfg.loss, &workers);
        j["val_loss"] = res.val_loss;
      }
      std::vector<std::string> gens;
      progress.finish();
      std::fprintf(stderr, "[%s] step %llu  val_loss %.4f\n", stage.c_str(),
                   static_cast<unsigned long long>(state.step), res.val_loss);
      if (spec.tok) {
        for (const std::string& p : spec.sample_prompts) {
          std::string g = greedy_text(model, *spec.tok, p, 16);
          std::fprintf(stderr, "    %s|%s\n", p.c_str(), g.c_str());
          gens.push_back(g);
        }
      }
      j["samples"] = gens;
      ctx.log->write(j);
    }
    if (!last && cfg.checkpoint_every && state.step % cfg.checkpoint_every == 0) checkpoint(spec.partial_ckpt);
  }
  progress.finish();
  if (next.valid()) next.wait();  // a prefetch past an interrupt is dropped (the cursor is not advanced)
  std::signal(SIGINT, old_handler);
  res.steps = state.step;
  res.stage_tokens = stage_tokens;
  res.last_loss = last_loss;
  res.tok_per_s = progress.tokens_per_second();
  if (g_interrupt && state.step < cfg.steps) {
    checkpoint(spec.partial_ckpt);
    std::fprintf(stderr, "[%s] interrupted at step %llu: checkpoint %s (resume with --resume)\n", stage.c_str(),
                 static_cast<unsigned long long>(state.step), spec.partial_ckpt.c_str());
    res.interrupted = true;
    return res;
  }
  checkpoint(spec.final_ckpt);
  std::remove(spec.partial_ckpt.c_str());
  return res;
}

}  // namespace amxqa::train
