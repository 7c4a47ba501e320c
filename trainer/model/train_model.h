// train_model.h — the trainer's model: fp32 master weights, a forward pass that
// keeps its activations (built on the runtime's kernels and ops, never a second
// implementation of the math in schemas/MODEL.md), and a hand-written backward.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "amxqa.h"
#include "format/model_spec.h"

namespace amxqa::train {

// One fp32 parameter tensor with its gradient and AdamW moments.
struct Param {
  std::string name;             // MODEL.md tensor name
  std::vector<uint32_t> shape;
  std::vector<float> w, g, m, v;
  bool decay = true;            // norms, gains, biases: false
  // MoE expert tensors: which experts got gradient this step (only those are stepped).
  std::vector<uint8_t> touched; // per expert, empty for dense tensors
};

enum class LossKind : uint8_t {
  full,        // softmax over the whole vocabulary
  sampled,     // softmax over targets + a shared pool of `sampled_pool` random ids per document
               // (drawn from `seed`, uniform, distinct; no logQ correction, ours; falls back
               // to the full softmax when pool + targets would cover the vocabulary)
  extractive,  // softmax over the document's passage ids + EOT + ABSTAIN (what decoding allows)
};

struct LossOptions {
  LossKind kind = LossKind::full;
  uint32_t sampled_pool = 1024;
  uint64_t seed = 0;                  // for the sampled pool
  float load_balance = 0.01f;         // MoE aux loss coefficient
  bool shuffle_route_stat = false;    // ablation (paper failure 3; ours: each block routes on
                                      // another block's statistic, a permutation from `seed`)
  // extractive only: the passage token range [begin, end) inside the document
  uint32_t passage_begin = 0, passage_end = 0;
  // extractive, start-pointer models: the position of the answer's first token
  // (0: none, e.g. an abstain example)
  uint32_t answer_begin = 0;
  // Gradient weights (ours). forward_backward accumulates the gradient of
  //   ce_scale · Σ_t CE_t  +  aux_scale · aux_loss
  // ce_scale = 0 means 1 / predicted (the mean CE of this document). To weight
  // a multi-document step by tokens, pass 1 / (predicted positions in the step).
  float ce_scale = 0.f;
  float aux_scale = 1.f;
};

struct StepStats {
  double loss_sum = 0;      // sum of CE over predicted positions
  uint64_t predicted = 0;   // number of predicted positions
  double aux_loss = 0;
  uint64_t correct = 0;     // argmax == target (over the loss's softmax set)
  uint64_t end_correct = 0; // end-pointer rows (MODEL.md "End pointer"): argmax == target
  std::vector<uint64_t> expert_counts;  // per MoE layer × E, routing slots this step
};

// Thread CPU time spent per stage by forward_backward/evaluate (seconds, forward +
// backward; equals wall time on a dedicated core).
struct StageTimes {
  double attention = 0;  // swa + lin mixers (projections included)
  double moe = 0;        // routing + experts + load balance
  double mlp = 0;        // dense FFN layers
  double readout = 0;    // final norm, logits, softmax loss
  double other = 0;      // embedding, norms, residuals
};

class TrainModel {
 public:
  TrainModel(const ArchConfig& arch, uint64_t seed);   // random init (scaled normal)
  const ArchConfig& arch() const { return arch_; }
  std::vector<Param>& params() { return params_; }
  const std::vector<Param>& params() const { return params_; }
  Param* find(const std::string& name);

  // One document: tokens[0] == kBos. target_mask[t] != 0: position t predicts
  // tokens[t + 1] (t + 1 < n). Runs forward and backward, ACCUMULATES into
  // each Param::g (and marks touched experts), returns statistics. Deterministic.
  // Throws std::invalid_argument if tokens[0] != kBos or an id is >= vocab_size.
  StepStats forward_backward(const uint32_t* tokens, size_t n, const uint8_t* target_mask,
                             const LossOptions& opt);

  // Forward only: loss statistics, no gradients.
  StepStats evaluate(const uint32_t* tokens, size_t n, const uint8_t* target_mask,
                     const LossOptions& opt);

  // Final hidden state → logits of every id at the last position of tokens
  // (greedy generation for probes while training; the shipped path is the C API).
  // opt: only its passage range matters (question match); none by default.
  void last_logits(const uint32_t* tokens, size_t n, std::vector<float>& logits,
                   const LossOptions& opt = LossOptions());

  void zero_grad();
  // Global L2 norm of gradients (for clipping).
  double grad_norm() const;

  // Per token id: how many times it was an input or a target (paper failure 4).
  std::vector<uint64_t>& token_seen() { return token_seen_; }
  const std::vector<uint64_t>& token_seen() const { return token_seen_; }

  const StageTimes& stage_times() const;
  void reset_stage_times();

  // To the exporter: every Param as a TensorSpec (f32), MODEL.md names.
  // weight_bits: 7 or 8, for i8 matrices (TensorSpec::weight_bits).
  std::vector<TensorSpec> to_tensors(DType matrix_dtype, uint8_t weight_bits = 8) const;

 private:
  ArchConfig arch_;
  std::vector<Param> params_;
  std::vector<uint64_t> token_seen_;
  struct Impl;
  std::shared_ptr<Impl> impl_;  // activations and scratch
};

struct AdamWConfig {
  float lr = 3e-4f, beta1 = 0.9f, beta2 = 0.95f, eps = 1e-8f, weight_decay = 0.1f, clip = 1.0f;
  uint32_t warmup = 25;
  float final_lr_frac = 0.1f;  // cosine decay to lr * final_lr_frac (ours: cosine)
};
float lr_at(const AdamWConfig& c, uint64_t step, uint64_t total_steps);
// One AdamW step over all params (moe expert slices only where touched), after
// clipping by global norm (summed over the units of model/optimizer_units.h,
// in unit order; StepWorkers::adamw_step runs the same units on its threads);
// returns the pre-clip norm. step counts from 1.
// lr_at: linear warm-up over `warmup` steps, then cosine to lr · final_lr_frac
// at total_steps. Gradients and touched flags are left for zero_grad().
double adamw_step(std::vector<Param>& params, const AdamWConfig& c, uint64_t step, float lr);

// The GEMM table the trainer uses: AVX-512 where the CPU has it, else AVX2+FMA,
// else scalar, under the AMXQA_MAX_ISA cap (avx2 | avx512 | amx | scalar) as in
// the runtime; read once per process.
const Kernels& train_kernels();
// The ISA that choice is made for (AMXQA_ISA_SCALAR .. AMXQA_ISA_AMX).
amxqa_isa train_isa();
// Mixed precision (the paper's "bf16 compute, fp32 master weights"): when on,
// every trainer GEMM rounds its operands to bf16 and accumulates in f32, on
// AMX tiles where the CPU and OS allow them (sgemm_bf16_tiles), else with
// AVX512-BF16 (sgemm_bf16_avx512). Returns whether the mode is in effect:
// false on CPUs with neither, where the f32 path stays. Off by default.
// emulated_tiles (tests): the tile path on the portable tile emulator, on any
// CPU with AVX512-BF16 (the operand packers' instructions).
bool set_bf16_compute(bool on, bool emulated_tiles = false);
// Whether bf16 compute is on; and whether it runs on (real or emulated) tiles.
bool bf16_compute_on();
bool bf16_compute_on_tiles();
// Every writer of Param::w calls this after writing (adamw_step,
// StepWorkers, load_checkpoint and TrainModel's constructor do): on tiles,
// the weights' bf16 layouts are packed once per generation of the weights.
void weights_changed();

// Bit-exact checkpoints: weights, moments, step, RNG state, data cursor.
struct TrainState {
  uint64_t step = 0, tokens_seen = 0, data_cursor = 0, rng_state = 0;
  std::string extra;  // stage-specific, opaque
};
void save_checkpoint(const std::string& path, const TrainModel& m, const TrainState& s);
// load: false if the file is absent; throws std::runtime_error if it is corrupt
// or was written for a different architecture.
bool load_checkpoint(const std::string& path, TrainModel& m, TrainState& s);

}  // namespace amxqa::train
