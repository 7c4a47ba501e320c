#include "stages/sft_prefetch.h"

#include <chrono>
#include <cstdio>
#include <utility>

#include "stages/round_sets.h"
#include "stages/run_context.h"

namespace amxqa::train {

SftSetPrefetch::SftSetPrefetch(std::vector<std::string> stages, Build build) : build_(std::move(build)) {
  slots_.resize(stages.size());
  for (size_t i = 0; i < stages.size(); ++i) slots_[i].stage = std::move(stages[i]);
  thread_ = std::thread([this] { run(); });
}

SftSetPrefetch::~SftSetPrefetch() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  thread_.join();
}

void SftSetPrefetch::run() {
  for (size_t i = 0;; ++i) {
    std::string stage;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (stop_ || i == slots_.size()) break;
      stage = slots_[i].stage;
    }
    const auto t0 = std::chrono::steady_clock::now();
    std::optional<SftSet> set;
    std::exception_ptr error;
    try {
      set = build_(stage);
    } catch (const std::exception& e) {
      // Said now, so a long run can be stopped early; the round that needs the set fails with it.
      std::fprintf(stderr, "[prefetch] building the %s set failed (the run stops when %s starts): %s\n",
                   stage.c_str(), stage.c_str(), e.what());
      error = std::current_exception();
    } catch (...) {
      error = std::current_exception();
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::lock_guard<std::mutex> lock(mu_);
    Slot& slot = slots_[i];
    // Moved, not copied: the slot holds the only reference, so the exception
    // is released on the thread that takes it.
    slot.set = std::move(set);
    slot.error = std::move(error);
    slot.seconds = seconds;
    slot.done = true;
    if (slot.error) stop_ = true;  // the run fails at this stage; later sets would go unused
    cv_.notify_all();
  }
  // The builder's inputs (the parsed SQuAD file, the tokenizer) are freed
  // now rather than with the run's context.
  build_ = nullptr;
  // Slots never built (after a failure or the destructor's stop) are done, empty.
  std::lock_guard<std::mutex> lock(mu_);
  for (Slot& s : slots_) s.done = true;
  cv_.notify_all();
}

std::optional<SftSet> SftSetPrefetch::take(const std::string& stage, double* built_s) {
  std::unique_lock<std::mutex> lock(mu_);
  for (Slot& s : slots_) {
    if (s.stage != stage) continue;
    cv_.wait(lock, [&] { return s.done; });
    if (built_s) *built_s = s.seconds;
    if (s.error) std::rethrow_exception(std::exchange(s.error, nullptr));
    return std::exchange(s.set, std::nullopt);
  }
  return std::nullopt;
}

std::unique_ptr<SftSetPrefetch> start_sft_prefetch(const RunContext& ctx) {
  std::vector<std::string> stages;
  for (const char* s : {"sft_stop", "sft_qa", "sft_abstain"})
    if (!file_exists(ctx.out(stage_checkpoint(s)))) stages.push_back(s);
  if (stages.empty()) return nullptr;
  // The thread's own copies: the recipe and settings (the run's context
  // stays the training thread's), the tokenizer, the parsed SQuAD file.
  struct Inputs {
    RunContext ctx;
    RunTokenizer tok;
    SquadTrainFile squad;
  };
  auto in = std::make_shared<Inputs>();
  in->ctx.recipe = ctx.recipe;
  in->ctx.cfg = ctx.cfg;
  in->tok = load_run_tokenizer(ctx);
  return std::make_unique<SftSetPrefetch>(std::move(stages), [in](const std::string& stage) {
    return build_round_set(in->ctx, stage, in->tok.owned.view, in->squad);
  });
}

}  // namespace amxqa::train
