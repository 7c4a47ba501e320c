// passage_reader.h — MODEL.md "Passage reader": the start and end pointers'
// keys read the whole passage, both sides, once the prefill has made them.
#pragma once
#include <cstdint>

#include "session/session.h"

namespace amxqa {

// Updates s->pass_u[0, n) in place (models with arch.passage_reader; a no-op
// otherwise). Uses s->reader_buf; allocates nothing.
void read_passage(amxqa_session* s, uint32_t n);

}  // namespace amxqa
