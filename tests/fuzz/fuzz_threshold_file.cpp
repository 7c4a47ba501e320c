// fuzz_threshold_file.cpp — the thresholds file (`--threshold-file`, written
// by `amxqa calibrate --out`; sdk/eval/no_answer_sweep.h) with arbitrary
// bytes: it parses to a finite threshold or an error message, never a throw
// or a crash; a parsed threshold written back and read again is the same.
#include <cmath>
#include <cstdint>
#include <string>

#include "fuzz_support.h"
#include "no_answer_sweep.h"

extern "C" int LLVMFuzzerInitialize(int*, char***) { return 0; }

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace amxqa::eval;
  const std::string text(reinterpret_cast<const char*>(data), size);
  float t = 0.f;
  std::string error, method;
  if (!parse_threshold_json(text, &t, &error, &method)) {
    AMXQA_FUZZ_CHECK(!error.empty());
    return 0;
  }
  AMXQA_FUZZ_CHECK(std::isfinite(t));
  Sweep s;
  s.best.threshold = t;
  float again = 0.f;
  AMXQA_FUZZ_CHECK(parse_threshold_json(sweep_json(s, "m", "d", method), &again, &error));
  AMXQA_FUZZ_CHECK(again == t);
  return 0;
}
