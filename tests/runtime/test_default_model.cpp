// test_default_model.cpp — CI checks of the shipped model, sdk/models/default.amxqa.
//
// The model's answers change whenever it is retrained, so nothing here pins
// answer text. It checks the properties every shipped model must keep, through
// the public C API only, on fixed questions about fixed passages (written for
// this project, not taken from the SQuAD dev split):
//   - each answer is the exact bytes of passage[span_begin, span_end), or an
//     abstention with empty output;
//   - amxqa_answer allocates nothing (tests/support/alloc_counter.h);
//   - asking the same question twice gives byte-identical output and info;
//   - all of the above on every ISA this CPU supports (scalar, AVX2, AVX-512,
//     AMX). Answers may legitimately differ *between* ISAs (floating-point
//     summation order differs), so agreement across ISAs is reported, not
//     asserted.
//
// AMXQA_DEFAULT_MODEL_PATH overrides the model path (e.g. to test a freshly
// trained ci-tiny model). A missing model is a failure, not a skip: the SDK
// promises the file.
#include <doctest/doctest.h>

#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "amxqa.h"
#include "support/alloc_counter.h"

namespace {

std::string default_model_path() {
  if (const char* env = std::getenv("AMXQA_DEFAULT_MODEL_PATH"); env && *env) return env;
  return std::string(AMXQA_SOURCE_DIR) + "/sdk/models/default.amxqa";
}

bool read_file(const std::string& path, std::string* bytes) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return false;
  bytes->assign(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
  return true;
}

// 64-byte aligned bytes owned by the test (the library takes caller memory).
struct AlignedBytes {
  void* p = nullptr;
  explicit AlignedBytes(size_t n) : p(std::aligned_alloc(64, (n + 63) / 64 * 64)) {}
  ~AlignedBytes() { std::free(p); }
  AlignedBytes(const AlignedBytes&) = delete;
  AlignedBytes& operator=(const AlignedBytes&) = delete;
};

struct Question {
  const char* passage_name;
  const char* text;
};

// Passages written for this test. Each is short, factual, and self-contained.
const char kBridgePassage[] =
    "The Harrow Bridge crosses the river Lune at Kirkby Mill. It was built of red sandstone in "
    "1794 by the mason Thomas Harrison, and has five arches. A flood in 1911 destroyed the "
    "western arch, which was rebuilt in concrete two years later.";
const char kBeePassage[] =
    "Honey bees tell each other where food is with a waggle dance. The angle of the dance "
    "shows the direction of the flowers relative to the sun, and the length of the waggle "
    "run shows how far away they are. Karl von Frisch described the dance in 1927 and "
    "shared the Nobel Prize for this work in 1973.";
const char kTrainPassage[] =
    "The night train from Oslo to Bodo takes about seventeen hours. It leaves Oslo Central "
    "Station at eleven in the evening and stops in Trondheim in the morning, where most "
    "passengers change to the coastal line.";

const Question kQuestions[] = {
    {"lighthouse", "Who designed the present tower?"},
    {"lighthouse", "When was the present tower completed?"},
    {"lighthouse", "Where was the upper part of Smeaton's tower rebuilt?"},
    {"bridge", "Who built the Harrow Bridge?"},
    {"bridge", "How many arches does the bridge have?"},
    {"bees", "Who described the waggle dance?"},
    {"bees", "What does the length of the waggle run show?"},
    {"train", "How long does the night train from Oslo to Bodo take?"},
    // Not answered by its passage: an abstention is the right answer, but
    // any exact span is also accepted (properties, not quality).
    {"bridge", "What is the capital of Australia?"},
};

struct Answer {
  amxqa_status status = AMXQA_ERR_INTERNAL;
  std::string text;  // bytes up to the NUL
  amxqa_answer_info info = amxqa_answer_info_init();
  uint64_t allocations = 0;
  uint64_t news = 0;
};

bool operator==(const Answer& a, const Answer& b) {
  return a.status == b.status && a.text == b.text && a.info.span_begin == b.info.span_begin &&
         a.info.span_end == b.info.span_end && a.info.abstained == b.info.abstained &&
         a.info.stopped_on_eot == b.info.stopped_on_eot &&
         a.info.answer_tokens == b.info.answer_tokens &&
         std::memcmp(&a.info.mean_logprob, &b.info.mean_logprob, sizeof(float)) == 0;
}

// One amxqa_answer call with its allocations counted. `out` is the caller's
// buffer, made before the counted scope.
Answer ask(amxqa_session* s, const std::string& q, const std::string& p, std::vector<char>& out) {
  Answer a;
  amxqa::test::AllocScope scope;
  a.status =
      amxqa_answer(s, q.data(), q.size(), p.data(), p.size(), out.data(), out.size(), &a.info);
  const amxqa::test::AllocCounts c = scope.counts();  // before any CHECK (doctest allocates)
  a.allocations = c.allocations;
  a.news = c.news;
  a.text.assign(out.data(), strnlen(out.data(), out.size()));
  return a;
}

class OpenModel {
 public:
  explicit OpenModel(const std::string& path) {
    if (!read_file(path, &bytes_)) {
      FAIL("the default model is missing: " << path
           << " (sdk/models/default.amxqa ships with the SDK; set AMXQA_DEFAULT_MODEL_PATH to "
              "test another model)");
    }
    file_ = std::make_unique<AlignedBytes>(bytes_.size() ? bytes_.size() : 1);
    storage_ = std::make_unique<AlignedBytes>(AMXQA_MODEL_STORAGE_BYTES);
    REQUIRE(file_->p);
    REQUIRE(storage_->p);
    std::memcpy(file_->p, bytes_.data(), bytes_.size());
    const amxqa_status st = amxqa_model_open(file_->p, bytes_.size(), storage_->p, &model_);
    const std::string why = path + ": " + amxqa_status_name(st) + ": " + amxqa_last_error(nullptr);
    INFO(why);
    REQUIRE(st == AMXQA_OK);
  }
  const amxqa_model* get() const { return model_; }

 private:
  std::string bytes_;
  std::unique_ptr<AlignedBytes> file_, storage_;
  amxqa_model* model_ = nullptr;
};

std::vector<amxqa_isa> supported_isas() {
  amxqa_cpu_info cpu = amxqa_cpu_info_init();
  REQUIRE(amxqa_cpu_query(&cpu) == AMXQA_OK);
  // cpu.best already honours an AMXQA_MAX_ISA cap; ISAs above it are refused.
  std::vector<amxqa_isa> isas = {AMXQA_ISA_SCALAR};
  if (cpu.has_avx2_fma && AMXQA_ISA_AVX2 <= cpu.best) isas.push_back(AMXQA_ISA_AVX2);
  if (cpu.has_avx512 && AMXQA_ISA_AVX512 <= cpu.best) isas.push_back(AMXQA_ISA_AVX512);
  if (cpu.has_amx && AMXQA_ISA_AMX <= cpu.best) isas.push_back(AMXQA_ISA_AMX);
  const bool arm_best = cpu.best == AMXQA_ISA_NEON || cpu.best == AMXQA_ISA_NEON_DOTPROD;
  if (cpu.has_neon && arm_best) isas.push_back(AMXQA_ISA_NEON);
  if (cpu.has_neon_dotprod && cpu.best == AMXQA_ISA_NEON_DOTPROD) isas.push_back(AMXQA_ISA_NEON_DOTPROD);
  return isas;
}

// A session of the default options on `isa`, placed in *mem.
amxqa_session* isa_session(const amxqa_model* model, amxqa_isa isa, std::unique_ptr<AlignedBytes>* mem) {
  amxqa_session_options opt;
  amxqa_session_options_default(&opt);
  opt.isa = isa;
  const size_t need = amxqa_session_size(model, &opt);
  REQUIRE(need > 0);
  *mem = std::make_unique<AlignedBytes>(need);
  REQUIRE((*mem)->p);
  amxqa_session* s = nullptr;
  const amxqa_status init = amxqa_session_init(model, &opt, (*mem)->p, need, &s);
  const std::string init_error = amxqa_last_error(nullptr);
  INFO(init_error);
  REQUIRE(init == AMXQA_OK);
  REQUIRE(amxqa_session_isa(s) == isa);
  return s;
}

std::map<std::string, std::string> load_passages() {
  std::map<std::string, std::string> passages;
  const std::string lighthouse = std::string(AMXQA_SOURCE_DIR) + "/samples/data/lighthouse.txt";
  REQUIRE_MESSAGE(read_file(lighthouse, &passages["lighthouse"]), "cannot read " << lighthouse);
  REQUIRE(!passages["lighthouse"].empty());
  passages["bridge"] = kBridgePassage;
  passages["bees"] = kBeePassage;
  passages["train"] = kTrainPassage;
  return passages;
}

}  // namespace

TEST_SUITE("integration") {

TEST_CASE("default model: exact spans or abstentions, no allocation, deterministic, on every ISA") {
  const std::string path = default_model_path();
  MESSAGE("model: " << path);
  OpenModel model(path);
  amxqa_model_info info = amxqa_model_info_init();
  REQUIRE(amxqa_model_get_info(model.get(), &info) == AMXQA_OK);
  MESSAGE("recipe " << std::string(info.recipe) << ", " << info.n_layers << " layers ("
          << std::string(info.layer_kinds) << "), d_model " << info.d_model << ", weights "
          << std::string(info.weight_dtype));

  const std::map<std::string, std::string> passages = load_passages();
  const size_t n_questions = sizeof kQuestions / sizeof kQuestions[0];
  std::map<amxqa_isa, std::vector<Answer>> by_isa;

  for (amxqa_isa isa : supported_isas()) {
    const std::string isa_name = amxqa_isa_name(isa);
    CAPTURE(isa_name);
    std::unique_ptr<AlignedBytes> mem;
    amxqa_session* s = isa_session(model.get(), isa, &mem);

    std::vector<char> out(1024);
    for (size_t i = 0; i < n_questions; ++i) {
      const std::string question = kQuestions[i].text;
      const std::string& passage = passages.at(kQuestions[i].passage_name);
      CAPTURE(question);
      const Answer first = ask(s, question, passage, out);
      const Answer second = ask(s, question, passage, out);
      CAPTURE(first.text);
      const std::string answer_error = amxqa_last_error(s);
      INFO(answer_error);
      REQUIRE(first.status == AMXQA_OK);
      CHECK(first.info.isa == isa);

      // No allocation in either call (under allocator-owning sanitizers only
      // operator new is counted; see alloc_counter.h).
      if (amxqa::test::alloc_counting_complete()) {
        CHECK(first.allocations == 0);
        CHECK(second.allocations == 0);
      } else {
        CHECK(first.news == 0);
        CHECK(second.news == 0);
      }

      // Exact passage bytes, or an abstention with empty output.
      if (first.info.abstained) {
        CHECK(first.text.empty());
        CHECK(first.info.span_begin == first.info.span_end);
      } else {
        REQUIRE(first.info.span_begin <= first.info.span_end);
        REQUIRE(first.info.span_end <= passage.size());
        const std::string span = passage.substr(first.info.span_begin,
                                                first.info.span_end - first.info.span_begin);
        CHECK(first.text == span);
        CHECK(passage.find(first.text) != std::string::npos);
      }

      // The same call again: byte-identical answer and info.
      CHECK(second == first);
      by_isa[isa].push_back(first);
    }
    amxqa_session_finish(s);
  }

  // Cross-ISA agreement, reported only (see the header comment).
  const std::vector<Answer>& ref = by_isa.at(AMXQA_ISA_SCALAR);
  for (const auto& [isa, answers] : by_isa) {
    size_t same = 0;
    for (size_t i = 0; i < answers.size(); ++i) same += answers[i].text == ref[i].text;
    MESSAGE(std::string(amxqa_isa_name(isa)) << ": " << same << "/" << answers.size()
            << " answers equal to scalar's");
  }
}

TEST_CASE("the shipped model: calibrated; abstains off topic, answers on topic, on every ISA") {
  if (const char* env = std::getenv("AMXQA_DEFAULT_MODEL_PATH"); env && *env) {
    MESSAGE("AMXQA_DEFAULT_MODEL_PATH is set: these answers are the shipped model's; skipped");
    return;
  }
  OpenModel model(default_model_path());
  amxqa_model_info info = amxqa_model_info_init();
  REQUIRE(amxqa_model_get_info(model.get(), &info) == AMXQA_OK);
  CHECK(info.calibrated == 1);
  CHECK(std::isfinite(info.no_answer_threshold));
  std::string lighthouse;
  REQUIRE(read_file(std::string(AMXQA_SOURCE_DIR) + "/samples/data/lighthouse.txt", &lighthouse));
  struct Case {
    const char* question;
    const char* answer;  // nullptr: the passage does not say
  };
  const Case cases[] = {{"Who designed the present tower?", "James Douglass"},
                        {"When was the present tower completed?", "1882"},
                        {"What is the capital of France?", nullptr},
                        {"Who won the Super Bowl?", nullptr},
                        {"How tall is the Eiffel Tower?", nullptr}};
  for (amxqa_isa isa : supported_isas()) {
    const std::string isa_name = amxqa_isa_name(isa);
    CAPTURE(isa_name);
    std::unique_ptr<AlignedBytes> mem;
    amxqa_session* s = isa_session(model.get(), isa, &mem);
    for (const Case& c : cases) {
      CAPTURE(c.question);
      char out[256];
      amxqa_answer_info ai = amxqa_answer_info_init();
      REQUIRE(amxqa_answer(s, c.question, std::strlen(c.question), lighthouse.data(), lighthouse.size(), out,
                           sizeof out, &ai) == AMXQA_OK);
      CHECK(ai.no_answer_threshold == info.no_answer_threshold);
      CHECK(ai.probability >= 0.f);
      CHECK(ai.probability <= 1.f);
      if (c.answer) {
        CHECK(ai.abstained == 0);
        CHECK(std::string(out) == c.answer);
      } else {
        CHECK(ai.abstained == 1);
        CHECK(ai.no_answer_margin > info.no_answer_threshold);
      }
    }
    amxqa_session_finish(s);
  }
}

}  // TEST_SUITE
