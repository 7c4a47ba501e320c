// qa_engine.h — the sessions `amxqa serve` and `amxqa batch` answer with: one
// amxqa session (and one fixed answer buffer) per worker thread, all created
// and placed at start, and the call that answers one parsed request with one
// of them. In the answer path the library allocates nothing; the only
// allocation per request here is the copy of the answer text into QaAnswer.
#pragma once
#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <string>
#include <vector>

#include "amxqa.hpp"
#include "qa_request.h"
#include "qa_response.h"

namespace amxqa::serve {

// Everything one worker thread answers with, allocated once.
struct Worker {
  amxqa::Session session;
  std::vector<char> out;  // answer bytes; a longer answer is taken from the context span
  std::vector<amxqa_span> spans;  // kMaxTopK, for requests with top_k > 1
  uint32_t max_passage_tokens = 0;
  amxqa_session_options options{};  // what the session was made with; a request's fields change a copy
};

class SessionPool {
 public:
  // Creates `n` sessions of `options` for `model`. False (with *error) on failure.
  bool open(const amxqa::Model& model, const amxqa_session_options& options, size_t n, std::string* error);
  size_t size() const { return workers_.size(); }
  Worker& at(size_t i) { return workers_[i]; }  // batch: thread i owns worker i

  // A worker checked out of the pool; returned when the lease ends. The HTTP
  // thread pool has as many threads as workers, so a wait is short.
  class Lease {
   public:
    Lease(SessionPool* pool, size_t index) : pool_(pool), index_(index) {}
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;
    ~Lease() { pool_->release(index_); }
    Worker& worker() { return pool_->workers_[index_]; }

   private:
    SessionPool* pool_;
    size_t index_;
  };
  Lease acquire();

 private:
  void release(size_t index);
  std::vector<Worker> workers_;
  std::vector<size_t> free_;  // reserved to size(): push/pop never allocate
  std::mutex mu_;
  std::condition_variable cv_;
};

// Answers `req` with `w` (the request's threshold and session-option fields,
// qa_request.h request_options, apply to this call only). Library statuses
// become QaErrors: a passage over the session's token limit is 422
// passage_too_long naming --max-passage-tokens and the "windows" field.
QaError answer_request(Worker& w, const QaRequest& req, QaAnswer* out);

}  // namespace amxqa::serve
