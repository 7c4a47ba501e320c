// qa_engine.h — the sessions `amxqa serve` and `amxqa batch` answer with: one
// amxqa session (and one fixed answer buffer) per worker thread, all created
// and placed at start, and the call that answers one parsed request with one
// of them. In the answer path the library allocates nothing; the only
// allocation per request here is the copy of the answer text into QaAnswer.
#pragma once
#include <cstddef>
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
  // Worker thread i (of `amxqa batch`, or of `amxqa serve`: http_server.h)
  // owns worker i for the whole run, so no lock is taken per request.
  Worker& at(size_t i) { return workers_[i]; }

 private:
  std::vector<Worker> workers_;
};

// Answers `req` with `w` (the request's threshold and session-option fields,
// qa_request.h request_options, apply to this call only). Library statuses
// become QaErrors: a passage over the session's token limit is 422
// passage_too_long naming --max-passage-tokens and the "windows" field.
QaError answer_request(Worker& w, const QaRequest& req, QaAnswer* out);

}  // namespace amxqa::serve
