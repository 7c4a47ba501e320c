// passage_reader.h — MODEL.md "Passage reader": the start and end pointers'
// keys read the whole passage, both sides, once the prefill has made them.
#pragma once
#include <cstddef>
#include <cstdint>

#include "session/session.h"

namespace amxqa {

// Floats of session scratch the reader needs for n passage tokens (sets ovf
// if the count overflows): the session layout's reader_buf.
size_t reader_floats(const amxqa_model& m, size_t n, bool& ovf);

// Fills the reader's RoPE rows (positions 0 … max_passage_tokens − 1) once,
// when the session is made: models with arch.passage_reader; a no-op otherwise.
void reader_init(amxqa_session* s);

// Updates s->pass_u[0, n) in place (models with arch.passage_reader; a no-op
// otherwise). Uses s->reader_buf and s->blk.tmp; allocates nothing.
void read_passage(amxqa_session* s, uint32_t n);

}  // namespace amxqa
