// forward_logits.cpp — see forward_logits.h. Uses the runtime's private
// forward-pass entry points (session/forward.h) through amxqa_internal_session.
#include "support/forward_logits.h"

#include "session/forward.h"
#include "session/session.h"

namespace amxqa::test {

amxqa_status forward_logits(amxqa_session* s, const uint32_t* ids, size_t n, bool one_at_a_time,
                            float* logits, const uint8_t* match) {
  if (!s || !ids || !logits) return AMXQA_ERR_NULL_ARGUMENT;
  if (s->magic != kSessionMagic) return AMXQA_ERR_INVALID_ARGUMENT;
  for (size_t i = 0; i < n; ++i)
    if (ids[i] >= s->dim.V) return AMXQA_ERR_INVALID_ARGUMENT;
  forward_reset(s);
  const size_t step = one_at_a_time ? 1 : kPrefillRows;
  for (size_t i = 0; i < n; i += step) {
    const uint32_t m = static_cast<uint32_t>(n - i < step ? n - i : step);
    forward_rows(s, ids + i, m, logits + i * s->dim.V, match ? match + i : nullptr);
  }
  return AMXQA_OK;
}

}  // namespace amxqa::test
