// train_loop.h — the one training loop every stage runs. Per step: documents
// from a DocSource (addressed by a cursor, so resume is exact) until the step
// holds batch_tokens, forward_backward per document (CE weighted by tokens
// over the whole step), then AdamW. Progress line each second on stderr, JSONL
// every log_every steps, validation loss + greedy samples every eval_every,
// checkpoints every checkpoint_every steps, on SIGINT and at the end.
// The documents' gradients run on RunConfig::threads threads (StepWorkers:
// any thread count gives the same weights, bit for bit), and the next step's
// documents are read on another thread while a step computes.
#pragma once
#include <cmath>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "model/step_workers.h"
#include "model/train_model.h"
#include "recipe/run_config.h"
#include "squad/squad_examples.h"
#include "stages/run_context.h"

namespace amxqa::train {

// Deterministic documents: at(c) is the same example for the same cursor.
class DocSource {
 public:
  virtual ~DocSource() = default;
  virtual const Example& at(uint64_t cursor) = 0;
};

struct LoopSpec {
  const StageConfig* cfg = nullptr;
  std::string partial_ckpt;                 // resumable state while running
  std::string final_ckpt;                   // written at the end (partial removed)
  const std::vector<Example>* val = nullptr;  // validation documents
  const TokenizerView* tok = nullptr;       // for greedy samples
  std::vector<std::string> sample_prompts;  // raw continuations at eval time
};

struct LoopResult {
  uint64_t steps = 0, stage_tokens = 0;
  double last_loss = NAN, val_loss = NAN, tok_per_s = 0;
  bool interrupted = false;
};

// The stage-specific strings of TrainState::extra ("key=value" lines).
std::string extra_get(const std::string& extra, const std::string& key);
void extra_set(std::string& extra, const std::string& key, const std::string& value);

// Prepares model+state for a stage: resumes from spec.partial_ckpt when
// ctx.resume and it exists (returns true), else starts from `prev_ckpt` (if
// non-empty; moments reset, step 0) or from the random init.
bool begin_stage(const RunContext& ctx, const std::string& stage, const std::string& partial_ckpt,
                 const std::string& prev_ckpt, TrainModel& model, TrainState& state);

// Validation: mean CE over the documents' target positions (on the workers'
// threads when given, summed in document order either way).
double validation_loss(TrainModel& m, const std::vector<Example>& docs, const LossOptions& base,
                       StepWorkers* workers = nullptr);

LoopResult train_loop(RunContext& ctx, const std::string& stage, TrainModel& model, TrainState& state,
                      DocSource& source, const LoopSpec& spec);

// Set by SIGINT while a loop runs; the loop checkpoints and returns.
bool interrupted();
// Thrown by a stage whose loop was interrupted (after its checkpoint).
struct Interrupted : std::runtime_error {
  explicit Interrupted(const std::string& stage) : std::runtime_error("stage " + stage + " interrupted") {}
};

}  // namespace amxqa::train
