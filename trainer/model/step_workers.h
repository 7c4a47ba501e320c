// step_workers.h — one optimizer step's gradient on N threads with the bits
// of one thread. A step's documents are cut into micro-batches by
// micro_batch_of() (contiguous runs of documents, by tokens, never by thread
// count). Each micro-batch's gradient is computed on some worker into that
// worker's own replica of the model (its own weights copy, gradients and
// scratch), and the replicas' gradients are added into the master model's
// Param::g strictly in micro-batch order. So any thread count gives the same
// sums, in the same order, as one thread: the same weights, bit for bit.
#pragma once
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "model/train_model.h"

namespace amxqa::train {

// Micro-batches per step (ours). Fixed, so the sum order never depends on the
// thread count; 8 keeps 2 and 4 threads busy on unequal documents, and each
// costs one pass over the gradients (zeroing and adding a replica's).
constexpr size_t kMicroBatches = 8;

// The micro-batch of every document: document i goes to
// floor(tokens before i · kMicroBatches / total tokens), so the groups are
// contiguous, ascending and of about equal tokens.
std::vector<uint32_t> micro_batch_of(const std::vector<size_t>& doc_tokens);

// One document of a step (pointers stay the caller's).
struct StepDoc {
  const uint32_t* tokens = nullptr;
  size_t n = 0;
  const uint8_t* mask = nullptr;
  LossOptions opt;
};

class StepWorkers {
 public:
  // threads >= 1 (0 is taken as 1). The master's architecture is copied into
  // each replica; the master must outlive this object.
  StepWorkers(TrainModel& master, unsigned threads);
  ~StepWorkers();
  StepWorkers(const StepWorkers&) = delete;
  StepWorkers& operator=(const StepWorkers&) = delete;

  unsigned threads() const { return static_cast<unsigned>(replicas_.size()); }

  // master.zero_grad(), then the gradient of every document accumulated into
  // master's Param::g (touched experts and token_seen too) as described above.
  // Returns each document's statistics, in document order. Rethrows the first
  // exception a document raised (by document order), after all workers stopped.
  std::vector<StepStats> forward_backward(const std::vector<StepDoc>& docs);

  // TrainModel::evaluate of every document on the workers (no gradients),
  // statistics in document order.
  std::vector<StepStats> evaluate(const std::vector<StepDoc>& docs);

  // The replicas' stage times summed (thread CPU seconds).
  StageTimes stage_times() const;
  void reset_stage_times();

 private:
  struct Job;
  void worker_main(unsigned id);
  void run_job(Job& job);           // on all workers; returns when all are done
  void work_on(Job& job, unsigned id);  // copies the master's weights into its replica first

  TrainModel& master_;
  std::vector<std::unique_ptr<TrainModel>> replicas_;
  std::vector<std::thread> threads_;  // replicas_.size() - 1; worker 0 is the caller
  std::mutex mu_;
  std::condition_variable cv_;
  Job* job_ = nullptr;
  uint64_t generation_ = 0;
  unsigned busy_ = 0;
  bool stop_ = false;
};

}  // namespace amxqa::train
