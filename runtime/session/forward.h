// forward.h — the model's forward pass over a session's state (schemas/MODEL.md
// "Forward pass"): prefill in blocks of up to kPrefillRows tokens through
// Kernels::matmul, decode one token through Kernels::matvec, and the tied
// readout over a chosen set of rows.
#pragma once
#include <cstddef>
#include <cstdint>

#include "session/session.h"

namespace amxqa {

// Starts a new document: position 0, empty KV windows, zero lin states.
void forward_reset(amxqa_session* s);

// Top-k (s->snap non-null): forward_save copies the decoding state that later
// decode steps can read (position, the last window − 1 KV rows of each swa
// layer, lin states, MoE rings and routing) into s->snap; forward_restore puts
// it back, so decoding after a restore computes what it would have computed
// right after the save, bit for bit.
void forward_save(amxqa_session* s);
void forward_restore(amxqa_session* s);

// Runs m (1 ≤ m ≤ kPrefillRows) tokens at positions s->pos … s->pos + m − 1
// and advances s->pos. Afterwards s->blk.xn holds RMSNorm(x; final_norm) of
// the last row. If all_logits is non-null it receives m × V logits (every
// row's full readout; tests only). m == 1 is the decode step (matvec).
// match (models with question_match, else ignored; may be null): match[t] != 0
// adds tok_emb[pad] to row t's embedding (MODEL.md "Question match").
void forward_rows(amxqa_session* s, const uint32_t* ids, uint32_t m, float* all_logits,
                  const uint8_t* match = nullptr);

// Decode step: one token.
inline void decode_step(amxqa_session* s, uint32_t id) { forward_rows(s, &id, 1, nullptr); }

// out[r × d …] = RMSNorm(x; final_norm) of rows [r0, r0 + n) of the last
// forward_rows block (the start pointer's per-position keys).
void final_norm_rows(const amxqa_session* s, uint32_t r0, uint32_t n, float* out);

// Y = X · Wᵀ for m ≤ kPrefillRows rows (X row stride ldx, Y ldy): the decode
// path (m = 1) is matvec, prefill is matmul. bf16 and i8 weights give the same
// bits on every ISA (canonical_bf16.h, canonical_i8.h).
void gemm(const Kernels& k, const WeightView& w, const float* X, size_t ldx, size_t m, float* Y,
          size_t ldy);

// out[i] = logit of ids[i] from s->blk.xn (only the rows asked for).
void readout_rows(amxqa_session* s, const uint32_t* ids, size_t n, float* out);

// out[V] = every logit from s->blk.xn.
void readout_all(amxqa_session* s, float* out);

}  // namespace amxqa
