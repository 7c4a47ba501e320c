// step_workers.cpp — see step_workers.h. Worker 0 is the calling thread, so
// one thread starts no std::thread at all and runs the same code path.
#include "model/step_workers.h"

#include <atomic>
#include <exception>

namespace amxqa::train {

std::vector<uint32_t> micro_batch_of(const std::vector<size_t>& doc_tokens) {
  uint64_t total = 0;
  for (size_t n : doc_tokens) total += n;
  std::vector<uint32_t> mb(doc_tokens.size(), 0);
  uint64_t before = 0;
  for (size_t i = 0; i < doc_tokens.size(); ++i) {
    const uint64_t j = total ? before * kMicroBatches / total : 0;
    mb[i] = static_cast<uint32_t>(j < kMicroBatches ? j : kMicroBatches - 1);
    before += doc_tokens[i];
  }
  return mb;
}

struct StepWorkers::Job {
  const std::vector<StepDoc>* docs = nullptr;
  bool backward = false;
  std::vector<size_t> unit_begin;  // unit u = documents [unit_begin[u], unit_begin[u + 1])
  std::vector<StepStats>* stats = nullptr;
  std::atomic<size_t> next{0};
  // Backward: units are added into the master in order; `added` is the next one due.
  std::mutex add_mu;
  std::condition_variable add_cv;
  size_t added = 0;
  std::vector<std::exception_ptr> errors;  // per unit
};

namespace {

// master.g += replica.g, then replica.g = 0; expert tensors only over the
// slices the replica touched (its other slices hold no gradient).
void add_and_clear(TrainModel& master, TrainModel& replica) {
  std::vector<Param>& M = master.params();
  std::vector<Param>& R = replica.params();
  for (size_t i = 0; i < M.size(); ++i) {
    float* mg = M[i].g.data();
    float* rg = R[i].g.data();
    if (R[i].touched.empty()) {
      for (size_t j = 0, n = R[i].g.size(); j < n; ++j) {
        mg[j] += rg[j];
        rg[j] = 0.f;
      }
      continue;
    }
    const size_t slice = R[i].g.size() / R[i].touched.size();
    for (size_t e = 0; e < R[i].touched.size(); ++e) {
      if (!R[i].touched[e]) continue;
      for (size_t j = e * slice; j < (e + 1) * slice; ++j) {
        mg[j] += rg[j];
        rg[j] = 0.f;
      }
      M[i].touched[e] = 1;
      R[i].touched[e] = 0;
    }
  }
  std::vector<uint64_t>& ms = master.token_seen();
  std::vector<uint64_t>& rs = replica.token_seen();
  for (size_t t = 0; t < rs.size(); ++t) {
    ms[t] += rs[t];
    rs[t] = 0;
  }
}

}  // namespace

StepWorkers::StepWorkers(TrainModel& master, unsigned threads) : master_(master) {
  if (threads == 0) threads = 1;
  for (unsigned t = 0; t < threads; ++t) {
    auto r = std::make_unique<TrainModel>(master.arch(), 0);
    for (Param& p : r->params()) {  // replicas never step: no moments
      p.m = {};
      p.v = {};
    }
    replicas_.push_back(std::move(r));
  }
  for (unsigned t = 1; t < threads; ++t) threads_.emplace_back(&StepWorkers::worker_main, this, t);
}

StepWorkers::~StepWorkers() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  for (std::thread& t : threads_) t.join();
}

void StepWorkers::worker_main(unsigned id) {
  uint64_t seen = 0;
  for (;;) {
    Job* job = nullptr;
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [&] { return stop_ || generation_ != seen; });
      if (stop_) return;
      seen = generation_;
      job = job_;
    }
    work_on(*job, id);
    {
      std::lock_guard<std::mutex> lock(mu_);
      --busy_;
    }
    cv_.notify_all();
  }
}

void StepWorkers::run_job(Job& job) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    job_ = &job;
    ++generation_;
    busy_ = static_cast<unsigned>(threads_.size());
  }
  cv_.notify_all();
  work_on(job, 0);
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait(lock, [&] { return busy_ == 0; });
  job_ = nullptr;
}

void StepWorkers::work_on(Job& job, unsigned id) {
  TrainModel& rep = *replicas_[id];
  // This step's weights (the master's changed since the last job).
  const std::vector<Param>& M = master_.params();
  std::vector<Param>& R = rep.params();
  for (size_t i = 0; i < M.size(); ++i) R[i].w = M[i].w;  // same size: no allocation

  const size_t units = job.unit_begin.size() - 1;
  for (size_t u = job.next.fetch_add(1); u < units; u = job.next.fetch_add(1)) {
    std::exception_ptr error;
    try {
      for (size_t i = job.unit_begin[u]; i < job.unit_begin[u + 1]; ++i) {
        const StepDoc& d = (*job.docs)[i];
        (*job.stats)[i] = job.backward ? rep.forward_backward(d.tokens, d.n, d.mask, d.opt)
                                       : rep.evaluate(d.tokens, d.n, d.mask, d.opt);
      }
    } catch (...) {
      error = std::current_exception();
    }
    if (!job.backward) {
      if (error) job.errors[u] = error;
      continue;
    }
    std::unique_lock<std::mutex> lock(job.add_mu);
    job.add_cv.wait(lock, [&] { return job.added == u; });
    // Only this worker touches the master's gradients now (the others wait
    // for their turn), so the add runs with the lock held.
    if (error) {
      job.errors[u] = error;
      rep.zero_grad();
      std::fill(rep.token_seen().begin(), rep.token_seen().end(), 0);
    } else {
      add_and_clear(master_, rep);
    }
    ++job.added;
    job.add_cv.notify_all();
  }
}

std::vector<StepStats> StepWorkers::forward_backward(const std::vector<StepDoc>& docs) {
  master_.zero_grad();
  std::vector<StepStats> stats(docs.size());
  if (docs.empty()) return stats;
  std::vector<size_t> sizes(docs.size());
  for (size_t i = 0; i < docs.size(); ++i) sizes[i] = docs[i].n;
  const std::vector<uint32_t> mb = micro_batch_of(sizes);
  Job job;
  job.docs = &docs;
  job.backward = true;
  job.stats = &stats;
  for (size_t i = 0; i < docs.size(); ++i)
    if (i == 0 || mb[i] != mb[i - 1]) job.unit_begin.push_back(i);
  job.unit_begin.push_back(docs.size());
  job.errors.resize(job.unit_begin.size() - 1);
  run_job(job);
  for (const std::exception_ptr& e : job.errors)
    if (e) std::rethrow_exception(e);
  return stats;
}

std::vector<StepStats> StepWorkers::evaluate(const std::vector<StepDoc>& docs) {
  std::vector<StepStats> stats(docs.size());
  if (docs.empty()) return stats;
  Job job;
  job.docs = &docs;
  job.stats = &stats;
  for (size_t i = 0; i <= docs.size(); ++i) job.unit_begin.push_back(i);
  job.errors.resize(docs.size());
  run_job(job);
  for (const std::exception_ptr& e : job.errors)
    if (e) std::rethrow_exception(e);
  return stats;
}

StageTimes StepWorkers::stage_times() const {
  StageTimes s;
  for (const auto& r : replicas_) {
    const StageTimes& t = r->stage_times();
    s.attention += t.attention;
    s.moe += t.moe;
    s.mlp += t.mlp;
    s.readout += t.readout;
    s.other += t.other;
  }
  return s;
}

void StepWorkers::reset_stage_times() {
  for (auto& r : replicas_) r->reset_stage_times();
}

}  // namespace amxqa::train
