// sft_prefetch.h — `amxqa-train run` builds the post-training rounds' example
// sets on one background thread while the earlier stages train, instead of
// each round stalling its first step on it (parsing the SQuAD train file and
// tokenising 130k examples took ~17 s per QA round of the v3 recipe, with one
// core busy and the other idle).
//
// The thread builds with build_round_set (stages/round_sets.h) — what a
// round run on its own calls — from its own copy of the recipe, its own
// tokenizer and its own parsed SQuAD file, so it shares no mutable state
// with the training thread and the sets (and so the weights) are the same
// bits. A build that throws is rethrown by take() in the round that needs
// the set: the run fails there, with the message the round gives alone.
#pragma once
#include <condition_variable>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "stages/sft_data.h"

namespace amxqa::train {

struct RunContext;

class SftSetPrefetch {
 public:
  using Build = std::function<SftSet(const std::string& stage)>;
  // Starts the thread, which calls build(stage) for each stage in order.
  SftSetPrefetch(std::vector<std::string> stages, Build build);
  // Lets the set being built finish, skips the rest, joins the thread.
  ~SftSetPrefetch();
  SftSetPrefetch(const SftSetPrefetch&) = delete;
  SftSetPrefetch& operator=(const SftSetPrefetch&) = delete;

  // The stage's set, once built (waits for it); its build's exception is
  // rethrown here. nullopt when the stage was not asked for or not built
  // (the thread stops at the first failure): the caller builds it itself.
  // `built_s` receives the seconds the thread spent building it.
  std::optional<SftSet> take(const std::string& stage, double* built_s = nullptr);

 private:
  struct Slot {
    std::string stage;
    bool done = false;
    std::optional<SftSet> set;
    std::exception_ptr error;
    double seconds = 0;
  };
  void run();

  Build build_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<Slot> slots_;  // guarded by mu_ once the thread runs
  bool stop_ = false;        // guarded by mu_
  std::thread thread_;       // last: starts after the members above exist
};

// For `run` once the tokenizer stage is done: a prefetch of the sets of the
// rounds whose checkpoint does not exist yet (none: nullptr).
std::unique_ptr<SftSetPrefetch> start_sft_prefetch(const RunContext& ctx);

}  // namespace amxqa::train
