// fuzz_squad.cpp — SQuAD input parsing with arbitrary bytes: parse_squad()
// (sdk/eval/squad_file.h, on nlohmann-json), and the path
// `amxqa squad` takes — load_eval_set() (sdk/cli) reading the bytes from a
// file through zlib (plain or gzip) — then the EM/F1 scoring of the parsed
// answers. Malformed input must give an error (exception or false), never a
// crash, unbounded recursion or a hang.
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <exception>
#include <initializer_list>
#include <stdexcept>
#include <string>

#include "fuzz_support.h"
#include "squad_file.h"
#include "squad_metrics.h"
#include "squad_eval_set.h"

namespace {

std::string g_path;  // this process's scratch file for load_eval_set()

void remove_scratch() { ::unlink(g_path.c_str()); }

void write_scratch(const uint8_t* data, size_t size) {
  FILE* f = std::fopen(g_path.c_str(), "wb");
  AMXQA_FUZZ_CHECK(f != nullptr);
  AMXQA_FUZZ_CHECK(size == 0 || std::fwrite(data, 1, size, f) == size);
  AMXQA_FUZZ_CHECK(std::fclose(f) == 0);
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  const char* dir = std::getenv("TMPDIR");
  std::string tmpl = std::string(dir && *dir ? dir : "/tmp") + "/amxqa-fuzz-squad-XXXXXX";
  const int fd = ::mkstemp(tmpl.data());
  AMXQA_FUZZ_CHECK(fd >= 0);
  ::close(fd);
  g_path = tmpl;
  std::atexit(remove_scratch);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const auto articles = amxqa::eval::parse_squad(text);
    for (const auto& a : articles)
      for (const auto& p : a.paragraphs)
        for (const auto& qa : p.qas) {
          AMXQA_FUZZ_CHECK(qa.answers.size() == qa.answer_starts.size());
          for (int64_t start : qa.answer_starts) AMXQA_FUZZ_CHECK(start >= -1);
        }
    (void)amxqa::eval::count_questions(articles);
  } catch (const std::runtime_error&) {
  }

  write_scratch(data, size);
  amxqa::eval::EvalSet set;
  std::string error;
  if (amxqa::eval::load_eval_set(g_path, 0, &set, &error)) {
    size_t scored = 0;
    for (const auto& q : set.questions) {
      AMXQA_FUZZ_CHECK(q.context < set.contexts.size());
      AMXQA_FUZZ_CHECK(q.impossible == q.answers.empty());
      if (scored++ == 64) break;  // scoring is quadratic: a sample is enough
      // Score the question and the context as if they were predictions.
      for (const std::string* pred :
           std::initializer_list<const std::string*>{&q.question, &set.contexts[q.context]}) {
        const double em = amxqa::eval::best_exact_match(*pred, q.answers);
        const double f1 = amxqa::eval::best_f1(*pred, q.answers);
        AMXQA_FUZZ_CHECK(em >= 0.0 && em <= 1.0 && f1 >= 0.0 && f1 <= 1.0);
      }
    }
  } else {
    AMXQA_FUZZ_CHECK(!error.empty());
  }
  return 0;
}
