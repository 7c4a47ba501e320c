// step_workers.h — one optimizer step's gradient on N threads with the bits
// of one thread. A step's documents are cut into micro-batches by
// micro_batch_of() (contiguous runs of documents, by tokens, never by thread
// count). Each micro-batch's gradient is computed on some worker into that
// worker's own replica of the model (its own weights copy, gradients and
// scratch), and the replicas' gradients are added into the master model's
// Param::g strictly in micro-batch order. So any thread count gives the same
// sums, in the same order, as one thread: the same weights, bit for bit.
// The optimizer step runs on the same workers over the fixed units of
// optimizer_units.h (again the bits of one thread).
#pragma once
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "model/optimizer_units.h"
#include "model/train_model.h"

namespace amxqa::train {

// Micro-batches per step (ours). Fixed, so the sum order never depends on the
// thread count; 8 keeps 2 and 4 threads busy on unequal documents, and each
// costs one pass over the gradients (adding and zeroing a replica's).
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

  // The gradient of every document into master's Param::g (touched experts
  // and token_seen too) as described above: what master.zero_grad() and then
  // accumulating would give, except that the first micro-batch is copied in
  // rather than added to zeros (no serial zeroing pass; a -0 gradient stays
  // -0). Returns each document's statistics, in document order. Rethrows the
  // first exception a document raised (by document order), after all workers
  // stopped.
  std::vector<StepStats> forward_backward(const std::vector<StepDoc>& docs);

  // adamw_step(master.params(), c, step, lr) on the workers, bit for bit: the
  // units' sums of squares on any worker, added in unit order on this thread,
  // then AdamW per unit, each updated unit also copied into every replica, so
  // the next job need not copy the weights. Contract for that skip: from the
  // last forward_backward/evaluate to the next one, the master's weights
  // change only through this call (train_loop only reads them otherwise;
  // callers that step with the free adamw_step keep the full copy).
  double adamw_step(const AdamWConfig& c, uint64_t step, float lr);

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
  void work_on(Job& job, unsigned id);  // document jobs: copies the master's weights first
  // `each(unit)` for unit in [0, count) on all workers.
  void run_units(size_t count, const std::function<void(size_t)>& each);

  TrainModel& master_;
  std::vector<std::unique_ptr<TrainModel>> replicas_;
  std::vector<std::thread> threads_;  // replicas_.size() - 1; worker 0 is the caller
  std::mutex mu_;
  std::condition_variable cv_;
  Job* job_ = nullptr;
  uint64_t generation_ = 0;
  unsigned busy_ = 0;
  bool stop_ = false;
  std::vector<OptUnit> units_;  // optimizer_units(master.params()), made once
  std::vector<double> partial_; // per unit sum of squares
  std::vector<std::vector<uint8_t>> was_touched_;  // forward_backward scratch
  bool replicas_synced_ = false;  // replicas' weights equal the master's (set by jobs)
  bool skip_next_copy_ = false;   // adamw_step kept them so (the contract above)
};

}  // namespace amxqa::train
