// run_config.h — a Recipe read into typed settings for every stage. Defaults
// follow the paper's published recipe (AdamW 3e-4, warm-up 25, betas
// 0.9/0.95, wd 0.1, clip 1.0, decay to 0.1x) unless the recipe overrides them.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "format/model_spec.h"
#include "model/train_model.h"
#include "recipe/recipe.h"

namespace amxqa::train {

// One training stage ([pretrain], [sft_stop], [sft_qa], [sft_abstain]).
struct StageConfig {
  std::string name;
  uint64_t steps = 0;
  uint64_t batch_tokens = 4096;     // tokens per optimizer step (whole documents)
  AdamWConfig optim;
  LossOptions loss;
  uint32_t log_every = 10, eval_every = 100, checkpoint_every = 200;
  uint32_t examples = 2000;         // SFT: examples built for the stage
  double unanswerable_frac = 0.0;   // sft_qa, sft_abstain: share of abstention examples
  uint32_t unanswerable_kinds = 0x7;  // sft_qa: bits of UnanswerableKind (stages/unanswerable.h)
  double hard_negative_frac = 0.0;  // sft_qa: other_paragraph takes the most similar paragraph this often
  double replay_frac = 0.0;         // SFT: share of pretraining pieces mixed in
  double crop_frac = 0.0;           // sft_qa: share of passages cropped to sentences near the answer
  double real_unanswerable_frac = 0.0;  // sft_qa, sft_abstain: share of training examples that are
                                        // human-written SQuAD 2.0 unanswerable questions (squad.train
                                        // must be a v2.0 file), on their own paragraphs
  std::string real_provenance;      // space-separated provenance values kept ("" = all)
  double cloze_frac = 0.0;          // sft_stop: share of paragraphs asked a cloze question (stages/cloze.h)
  double cloze_twin_frac = 0.0;     // sft_stop: share of cloze questions followed by their unanswerable twin
  bool line_paragraphs = false;     // sft_stop: each line of the data files is a paragraph (Wikipedia's layout)
  bool bf16_compute = false;        // compute = bf16: GEMM operands rounded to bf16 (set_bf16_compute)
};

struct RunConfig {
  std::string name;
  uint64_t seed = 1;
  uint32_t threads = 1;  // training threads (`threads`, --threads): any count trains the same bits
  ArchConfig arch;
  // [tokenizer]
  std::vector<std::string> tokenizer_files;
  uint64_t tokenizer_max_bytes = 4000000;
  // [data]
  std::vector<std::string> data_files;
  uint64_t data_max_bytes = 0;        // per file, 0 = all
  uint32_t seq_len = 1024;
  uint32_t val_pieces = 64;           // held-out validation pieces
  uint32_t min_doc_bytes = 0;         // join paragraphs until a document has this many bytes
  double tau = 10.0;                  // budget law: tokens per expert parameter
  // [squad]
  std::string squad_train, squad_dev;
  // stages
  StageConfig pretrain, sft_stop, sft_qa, sft_abstain;
  // [eval]
  uint32_t eval_limit = 500, round_eval_limit = 100, probe_items = 100;
  // [outputs]
  std::string out_dir, model_file;
  DType export_dtype = DType::f32;
  uint8_t export_weight_bits = 8;  // i8: 7 for outputs.dtype = i7 (MODEL.md "7-bit weights")
};

// Throws std::runtime_error naming the bad key.
RunConfig read_run_config(const Recipe& r);
// Parameters in one expert (w1 + w2) and the budget-law limit E ≤ N·k/(τ·P_e).
uint64_t expert_params(const ArchConfig& a);
double budget_law_max_experts(const ArchConfig& a, double planned_tokens, double tau);
std::string layer_kinds_string(const ArchConfig& a);

}  // namespace amxqa::train
