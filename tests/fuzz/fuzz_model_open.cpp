// fuzz_model_open.cpp — untrusted model files: amxqa_model_open and
// amxqa_model_verify on arbitrary bytes (in an exact-size, 64-byte aligned
// copy), which must agree. A file that opens is then used through the whole
// public API — info, scores, tokenizer, a small session and one answer — so a
// gap in validation shows up as a crash in the code that trusts it.
#include <cstring>

#include "fuzz_support.h"

using amxqa::fuzz::AlignedCopy;

namespace {

struct VerifyReport {
  size_t calls = 0;
  amxqa_status first = AMXQA_OK;
};

void on_report(void* user, amxqa_status status, const char* message) {
  auto* r = static_cast<VerifyReport*>(user);
  AMXQA_FUZZ_CHECK(message != nullptr);
  AMXQA_FUZZ_CHECK(status != AMXQA_OK);
  (void)std::strlen(message);
  if (r->calls++ == 0) r->first = status;
}

// Sessions bigger than this are not placed (the fuzzer's memory limit).
constexpr size_t kMaxSessionBytes = size_t(64) << 20;

void use_open_model(const amxqa_model* model) {
  amxqa_model_info info = amxqa_model_info_init();
  AMXQA_FUZZ_CHECK(amxqa_model_get_info(model, &info) == AMXQA_OK);
  AMXQA_FUZZ_CHECK(std::memchr(info.layer_kinds, 0, sizeof info.layer_kinds) != nullptr);
  AMXQA_FUZZ_CHECK(std::memchr(info.recipe, 0, sizeof info.recipe) != nullptr);

  const char* names[8];
  float values[8];
  const size_t n_scores = amxqa_model_scores(model, names, values, 8);
  for (size_t i = 0; i < n_scores && i < 8; ++i) (void)std::strlen(names[i]);

  // Every id's bytes, and one past the end.
  for (uint32_t id = 0; id <= info.vocab_size; ++id) {
    size_t len = 0;
    const char* b = amxqa_token_bytes(model, id, &len);
    if (id == info.vocab_size) AMXQA_FUZZ_CHECK(b == nullptr && len == 0);
    if (b && len) (void)(volatile char)b[len - 1];
  }
  static const char kText[] = "The quick brown fox, \xff\xfe caf\xc3\xa9 \x00 1969.";
  uint32_t ids[sizeof kText];
  const size_t n = amxqa_tokenize(model, kText, sizeof kText - 1, ids, sizeof kText);
  AMXQA_FUZZ_CHECK(n <= sizeof kText - 1);
  for (size_t i = 0; i < n; ++i) AMXQA_FUZZ_CHECK(ids[i] < info.vocab_size);

  amxqa_session_options opt;
  amxqa_session_options_default(&opt);
  opt.max_passage_tokens = 64;
  opt.max_question_tokens = 16;
  opt.max_answer_tokens = 4;
  opt.isa = AMXQA_ISA_SCALAR;
  const size_t need = amxqa_session_size(model, &opt);
  if (need == 0 || need > kMaxSessionBytes) return;
  AlignedCopy mem(need);
  amxqa_session* s = nullptr;
  AMXQA_FUZZ_CHECK(amxqa_session_init(model, &opt, mem.data(), need, &s) == AMXQA_OK);
  static const char kQ[] = "Who wrote it?";
  static const char kP[] = "It was written by Ada in 1843, in London.";
  char out[64];
  amxqa_answer_info ai = amxqa_answer_info_init();
  const amxqa_status st = amxqa_answer(s, kQ, sizeof kQ - 1, kP, sizeof kP - 1, out, sizeof out, &ai);
  AMXQA_FUZZ_CHECK(st == AMXQA_OK || st == AMXQA_ERR_QUESTION_TOO_LONG ||
                   st == AMXQA_ERR_PASSAGE_TOO_LONG);
  if (st == AMXQA_OK) AMXQA_FUZZ_CHECK(ai.span_begin <= ai.span_end && ai.span_end <= sizeof kP - 1);
  amxqa_session_finish(s);
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) { return 0; }

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const AlignedCopy file(data, size);
  AlignedCopy storage(AMXQA_MODEL_STORAGE_BYTES);
  amxqa_model* model = nullptr;
  const amxqa_status open_st = amxqa_model_open(file.data(), size, storage.data(), &model);
  (void)std::strlen(amxqa_last_error(nullptr));

  VerifyReport rep;
  const amxqa_status verify_st = amxqa_model_verify(file.data(), size, on_report, &rep);
  // Open and verify run the same checks: they agree on the first failure.
  AMXQA_FUZZ_CHECK(verify_st == open_st);
  AMXQA_FUZZ_CHECK((rep.calls == 0) == (verify_st == AMXQA_OK));
  if (rep.calls) AMXQA_FUZZ_CHECK(rep.first == verify_st);

  if (open_st == AMXQA_OK) {
    AMXQA_FUZZ_CHECK(model != nullptr);
    use_open_model(model);
  }
  return 0;
}
