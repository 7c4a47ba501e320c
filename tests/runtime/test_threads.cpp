// test_threads.cpp — the threading contract (amxqa.h): a model is immutable
// after open and shared by any number of threads, each with its own session.
// Four threads answer the same questions over ONE model; every answer must be
// byte-identical to a sequential run. Also run under ThreadSanitizer by
// tests/fuzz/run_tsan.sh, which is where races (rather than wrong answers)
// show up.
#include <array>
#include <atomic>
#include <thread>

#include "support/session_fixture.h"

using namespace amxqa;
using namespace amxqa::test;

namespace {

constexpr size_t kThreads = 4;

// Everything an answer reports except the timings.
struct Result {
  amxqa_status status = AMXQA_ERR_INTERNAL;
  std::string out;  // all outcap bytes up to and including the NUL
  uint64_t span_begin = 0, span_end = 0;
  uint32_t q_tokens = 0, p_tokens = 0, a_tokens = 0;
  uint8_t abstained = 0, eot = 0;
  float mean_logprob = 0;
  bool operator==(const Result& o) const {
    return status == o.status && out == o.out && span_begin == o.span_begin &&
           span_end == o.span_end && q_tokens == o.q_tokens && p_tokens == o.p_tokens &&
           a_tokens == o.a_tokens && abstained == o.abstained && eot == o.eot &&
           std::memcmp(&mean_logprob, &o.mean_logprob, sizeof(float)) == 0;
  }
};

struct Question {
  std::string q, p;
};

std::vector<Question> question_set() {
  Rng r{2024};
  std::vector<Question> qs;
  for (int i = 0; i < 10; ++i) qs.push_back({random_text(r, 3 + r.below(8)), random_text(r, 20 + r.below(150))});
  qs.push_back({"who?", ""});                                        // abstains
  qs.push_back({"bytes\xff\xfe?", std::string("a\0b \xc3\x28 the river", 17)});  // NUL, bad UTF-8
  return qs;
}

// No doctest assertions here: this runs on worker threads.
Result answer_one(amxqa_session* s, const Question& q) {
  Result r;
  char out[256];
  std::memset(out, 0x5a, sizeof out);
  amxqa_answer_info info = amxqa_answer_info_init();
  r.status = amxqa_answer(s, q.q.data(), q.q.size(), q.p.data(), q.p.size(), out, sizeof out, &info);
  r.out.assign(out, strnlen(out, sizeof out));
  r.span_begin = info.span_begin, r.span_end = info.span_end;
  r.q_tokens = info.question_tokens, r.p_tokens = info.passage_tokens, r.a_tokens = info.answer_tokens;
  r.abstained = info.abstained, r.eot = info.stopped_on_eot;
  r.mean_logprob = info.mean_logprob;
  return r;
}

void check_threads_match_sequential(const amxqa_model* model, amxqa_isa isa) {
  const std::vector<Question> qs = question_set();
  const amxqa_session_options o = default_options(isa);

  auto seq = make_session(model, o);
  if (seq->status == AMXQA_ERR_UNSUPPORTED_ISA) return;  // backend missing on this CPU
  REQUIRE(seq->status == AMXQA_OK);
  std::vector<Result> expected;
  for (const Question& q : qs) expected.push_back(answer_one(seq->s, q));
  for (const Result& r : expected) CHECK(r.status == AMXQA_OK);

  // Sessions placed up front; the threads only answer.
  std::vector<std::unique_ptr<TestSession>> sessions;
  for (size_t t = 0; t < kThreads; ++t) {
    sessions.push_back(make_session(model, o));
    REQUIRE(sessions.back()->status == AMXQA_OK);
  }
  std::array<std::vector<Result>, kThreads> got;
  std::atomic<int> ready{0};
  std::vector<std::thread> threads;
  for (size_t t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      got[t].resize(qs.size());
      ready.fetch_add(1);
      while (ready.load() < int(kThreads)) std::this_thread::yield();  // start together
      // Each thread walks the questions from a different start, twice, so
      // that the same question runs on different threads at the same time
      // and each session answers after different predecessors.
      for (size_t round = 0; round < 2; ++round)
        for (size_t i = 0; i < qs.size(); ++i) {
          const size_t k = (i + t * 3) % qs.size();
          const Result r = answer_one(sessions[t]->s, qs[k]);
          if (round == 0) got[t][k] = r;
          else if (!(r == got[t][k])) got[t][k].status = AMXQA_ERR_INTERNAL;  // flagged below
        }
    });
  }
  for (auto& th : threads) th.join();
  for (size_t t = 0; t < kThreads; ++t)
    for (size_t k = 0; k < qs.size(); ++k) {
      INFO("isa " << std::string(amxqa_isa_name(isa)) << ", thread " << t << ", question " << k);
      CHECK(got[t][k] == expected[k]);
    }
}

}  // namespace

TEST_SUITE("integration") {

TEST_CASE("threads: 4 sessions over one shared model answer exactly like a sequential run") {
  auto tm = open_random("tiny");
  for (amxqa_isa isa : {AMXQA_ISA_AUTO, AMXQA_ISA_SCALAR, AMXQA_ISA_AMX_EMULATED})
    check_threads_match_sequential(tm->model, isa);
  auto bf = open_random("tiny", DType::bf16, 3);
  check_threads_match_sequential(bf->model, AMXQA_ISA_AUTO);
}

TEST_CASE("threads: concurrent cpu query, open, verify and thread-local errors") {
  const std::vector<uint8_t> good = write_model(make_random_model("tiny", 5));
  Aligned file(good.size());
  std::memcpy(file.p, good.data(), good.size());
  std::vector<uint8_t> bad = good;
  std::memcpy(bad.data() + 4, "NOPE", 4);  // file_identifier
  Aligned bad_file(bad.size());
  std::memcpy(bad_file.p, bad.data(), bad.size());

  std::array<int, kThreads> ok{};
  std::vector<std::thread> threads;
  for (size_t t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      int good_results = 0;
      for (int i = 0; i < 20; ++i) {
        amxqa_cpu_info ci = amxqa_cpu_info_init();
        good_results += amxqa_cpu_query(&ci) == AMXQA_OK;
        alignas(64) static thread_local unsigned char storage[AMXQA_MODEL_STORAGE_BYTES];
        amxqa_model* m = nullptr;
        // Odd threads open the bad copy: their error must not leak into the
        // even threads' amxqa_last_error(NULL), nor the reverse.
        const bool odd = t % 2;
        const amxqa_status st = amxqa_model_open(odd ? bad_file.p : file.p, good.size(), storage, &m);
        const std::string err = amxqa_last_error(nullptr);
        if (odd) good_results += st == AMXQA_ERR_MODEL_IDENTIFIER && err.find("identifier") != std::string::npos;
        else good_results += st == AMXQA_OK && m != nullptr;
        good_results += amxqa_model_verify(odd ? bad_file.p : file.p, good.size(), nullptr, nullptr) ==
                        (odd ? AMXQA_ERR_MODEL_IDENTIFIER : AMXQA_OK);
      }
      ok[t] = good_results;
    });
  }
  for (auto& th : threads) th.join();
  for (size_t t = 0; t < kThreads; ++t) {
    INFO("thread " << t);
    CHECK(ok[t] == 60);
  }
}

}  // TEST_SUITE
