// step_workers.cpp — see step_workers.h. Worker 0 is the calling thread, so
// one thread starts no std::thread at all and runs the same code path.
#include "model/step_workers.h"

#include <atomic>
#include <algorithm>
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
  const std::function<void(size_t)>* each = nullptr;  // unit jobs (run_units); else documents
  size_t count = 0;                                    // unit jobs: how many units
  bool copy_weights = true;  // document jobs: the replicas need the master's weights
  const std::vector<StepDoc>* docs = nullptr;
  bool backward = false;
  std::vector<size_t> unit_begin;  // unit u = documents [unit_begin[u], unit_begin[u + 1])
  std::vector<StepStats>* stats = nullptr;
  std::atomic<size_t> next{0};
  // Backward: units are added into the master in order; `added` is the next one due.
  std::mutex add_mu;
  std::condition_variable add_cv;
  size_t added = 0;
  bool first_add = true;  // no micro-batch in the master's gradients yet
  std::vector<std::exception_ptr> errors;  // per unit
};

namespace {

// mg[j] (+)= rg[j], rg[j] = 0 over [begin, begin + n).
void add_or_copy(float* mg, float* rg, size_t begin, size_t n, bool copy) {
  float* m = mg + begin;
  float* r = rg + begin;
  if (copy) {
    for (size_t j = 0; j < n; ++j) {
      m[j] = r[j];
      r[j] = 0.f;
    }
    return;
  }
  for (size_t j = 0; j < n; ++j) {
    m[j] += r[j];
    r[j] = 0.f;
  }
}

// master.g += replica.g (= replica.g for the step's first micro-batch, and
// for expert slices the master has not touched yet this step), then
// replica.g = 0; expert tensors only over the slices the replica touched (its
// other slices hold no gradient).
void add_and_clear(TrainModel& master, TrainModel& replica, bool first) {
  std::vector<Param>& M = master.params();
  std::vector<Param>& R = replica.params();
  for (size_t i = 0; i < M.size(); ++i) {
    float* mg = M[i].g.data();
    float* rg = R[i].g.data();
    if (R[i].touched.empty()) {
      add_or_copy(mg, rg, 0, R[i].g.size(), first);
      continue;
    }
    const size_t slice = R[i].g.size() / R[i].touched.size();
    for (size_t e = 0; e < R[i].touched.size(); ++e) {
      if (!R[i].touched[e]) continue;
      add_or_copy(mg, rg, e * slice, slice, !M[i].touched[e]);
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

void StepWorkers::run_units(size_t count, const std::function<void(size_t)>& each) {
  Job job;
  job.each = &each;
  job.count = count;
  run_job(job);
}

void StepWorkers::run_job(Job& job) {
  if (!job.each) {  // a document job: the replicas then hold the master's weights
    job.copy_weights = !skip_next_copy_;
    skip_next_copy_ = false;
    if (job.copy_weights) weights_changed();  // the replicas' packs are of their old weights
  }
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
  if (!job.each) replicas_synced_ = true;
}

void StepWorkers::work_on(Job& job, unsigned id) {
  if (job.each) {
    for (size_t u = job.next.fetch_add(1); u < job.count; u = job.next.fetch_add(1)) (*job.each)(u);
    return;
  }
  TrainModel& rep = *replicas_[id];
  if (job.copy_weights) {  // this step's weights (the master's changed since the last job)
    const std::vector<Param>& M = master_.params();
    std::vector<Param>& R = rep.params();
    for (size_t i = 0; i < M.size(); ++i) R[i].w = M[i].w;  // same size: no allocation
  }

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
      add_and_clear(master_, rep, job.first_add);
      job.first_add = false;
    }
    ++job.added;
    job.add_cv.notify_all();
  }
}

std::vector<StepStats> StepWorkers::forward_backward(const std::vector<StepDoc>& docs) {
  std::vector<StepStats> stats(docs.size());
  if (docs.empty()) {
    master_.zero_grad();
    return stats;
  }
  // No zeroing pass: the adds copy where the master holds no gradient of this
  // step yet. Expert slices touched last step but not this one are zeroed
  // after the job, so untouched slices still hold zero gradient.
  std::vector<Param>& P = master_.params();
  was_touched_.resize(P.size());
  for (size_t i = 0; i < P.size(); ++i) {
    was_touched_[i] = P[i].touched;
    std::fill(P[i].touched.begin(), P[i].touched.end(), 0);
  }
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
  for (size_t i = 0; i < P.size(); ++i) {
    if (P[i].touched.empty()) {
      if (job.first_add) std::fill(P[i].g.begin(), P[i].g.end(), 0.f);  // every micro-batch failed
      continue;
    }
    const size_t slice = P[i].g.size() / P[i].touched.size();
    for (size_t e = 0; e < P[i].touched.size(); ++e)
      if (was_touched_[i][e] && !P[i].touched[e])
        std::fill(P[i].g.begin() + e * slice, P[i].g.begin() + (e + 1) * slice, 0.f);
  }
  for (const std::exception_ptr& e : job.errors)
    if (e) std::rethrow_exception(e);
  return stats;
}

double StepWorkers::adamw_step(const AdamWConfig& c, uint64_t step, float lr) {
  std::vector<Param>& P = master_.params();
  if (units_.empty()) units_ = optimizer_units(P);
  partial_.assign(units_.size(), 0.0);
  run_units(units_.size(), [&](size_t u) { partial_[u] = unit_sum_squares(P, units_[u]); });
  const double norm = norm_of(partial_);
  const AdamWScalars s = adamw_scalars(c, step, lr, norm);
  // The replicas equal the master now (the last job made them so), so copying
  // each updated unit keeps them equal; a unit's weights are still in cache.
  const bool keep_synced = replicas_synced_;
  run_units(units_.size(), [&](size_t u) {
    const OptUnit& unit = units_[u];
    if (!unit_live(P, unit)) return;
    unit_adamw(P, unit, c, s);
    if (!keep_synced) return;
    const float* w = P[unit.param].w.data() + unit.begin;
    for (const auto& r : replicas_)
      std::copy(w, w + unit.count, r->params()[unit.param].w.data() + unit.begin);
  });
  skip_next_copy_ = keep_synced;
  weights_changed();
  return norm;
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
