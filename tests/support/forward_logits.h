// forward_logits.h — a test hook on the runtime's forward pass (not in the
// shipped library): every position's full logits, so the tests can compare
// prefill blocks with decode steps, backends with each other and the runtime
// with the trainer (tests/trainer/test_train_runtime_agree.cpp).
#pragma once
#include <cstddef>
#include <cstdint>

#include "amxqa.h"

namespace amxqa::test {

// Runs ids[0..n) from position 0, either in prefill blocks (one_at_a_time =
// false) or as n decode steps, and writes the full logits of every position
// into logits[n × V]. Ids must be < V. match: optional per-position
// question-match flags (forward_rows). Never allocates.
amxqa_status forward_logits(amxqa_session* s, const uint32_t* ids, size_t n, bool one_at_a_time,
                            float* logits, const uint8_t* match = nullptr);

}  // namespace amxqa::test
