// session.h — struct amxqa_session: everything one answer needs, placed in
// caller memory by amxqa_session_init() (session_layout.cpp). Every pointer
// below points into that one block; nothing here is ever allocated.
//
// State that survives between tokens is constant in context length:
//   swa layer: a K/V buffer of (window + prefill rows) positions,
//   lin layer: the H × dk × hd state,
//   MoE layer: a ring of the last R MoE inputs plus the current expert choice.
// Only the per-passage-token buffers grow with max_passage_tokens (for a
// start-pointer model, d + 1 floats more per passage token).
#pragma once
#include <cstddef>
#include <cstdint>

#include "amxqa.h"
#include "kernels/kernels.h"
#include "model/model.h"

namespace amxqa {

constexpr uint32_t kSessionMagic = 0x53584d41;  // "AMXS" while usable
constexpr uint32_t kPrefillRows = 64;           // M: rows per prefill block
constexpr uint32_t kMaxSepTokens = 8;           // enc("\n\n") needs at most 2
constexpr size_t kSessionAlign = 64;

// Per-layer decoding state.
struct LayerState {
  // swa: positions [kv_base, kv_base + kv_len) at rows [0, kv_len) of kv_k / kv_v,
  // each row G·hd floats. Kept contiguous (shifted, not wrapped) so that one
  // ops::swa_attend call sees the whole window.
  float* kv_k = nullptr;
  float* kv_v = nullptr;
  uint32_t kv_base = 0, kv_len = 0;
  float* lin_S = nullptr;      // lin: H × dk × hd
  float* moe_ring = nullptr;   // MoE: R × d, the input of position p at row p % R
  uint32_t route_idx[kMaxTopK] = {};
  float route_gate[kMaxTopK] = {};
};

// Activations of one prefill block (M rows; decode uses row 0 only).
struct BlockBuffers {
  uint32_t* ids = nullptr;  // M token ids
  float* x = nullptr;       // M × d   residual stream
  float* u = nullptr;       // M × d   normed input of the mixer / FFN
  float* q = nullptr;       // M × qkv_w
  float* k = nullptr;       // M × qkv_w
  float* v = nullptr;       // M × qkv_w
  float* att = nullptr;     // M × H·hd  mixer output before wo
  float* hid = nullptr;     // M × ff_w  MLP / expert hidden
  float* tmp = nullptr;     // M × d   mixer / FFN output
  float* z = nullptr;       // M × H   lin decay logits
  float* probs = nullptr;   // window  attention weights
  float* stat = nullptr;    // d       MoE routing statistic
  float* router = nullptr;  // E       router logits
  float* xn = nullptr;      // d       final-normed last row (readout input)
};

// Derived dimensions, fixed at init.
struct Dims {
  uint32_t d = 0, H = 0, G = 0, hd = 0, dk = 0, W = 0, V = 0;
  uint32_t qkv_w = 0;  // H · max(hd, dk)
  uint32_t ff_w = 0;   // max(d_ff, moe_d_ff)
  uint32_t kv_cap = 0; // W + M positions per swa layer
};

}  // namespace amxqa

struct amxqa_session {
  uint32_t magic;
  const amxqa_model* model;
  amxqa_session_options opt;       // in force for the next answer
  amxqa_session_options opt_init;  // made with: the caps opt stays within (set_options)
  const amxqa::Kernels* kernels;
  amxqa_isa isa;
  amxqa::Dims dim;
  uint32_t pos;  // next position to run (tokens consumed so far)
  amxqa::LayerState layers[amxqa::kMaxLayers];
  amxqa::BlockBuffers blk;
  float* logits;          // V floats: readout of the allowed rows (or all rows)
  // Per passage token (16 bytes each).
  uint32_t* pass_ids;     // max_passage_tokens
  uint32_t* pass_off;     // byte offset of each passage token
  uint32_t* cand;         // candidate end positions of the current span
  // Start-pointer models only (MODEL.md "Start pointer"), else null:
  float* pass_u;          // max_passage_tokens × d: RMSNorm(x_L; final_norm) of each passage token
  float* pass_z;          // max_passage_tokens + 1: step-1 scores of the start positions
  // No-answer-head models only (MODEL.md "No-answer head"), else null:
  float* na_pool;         // max_passage_tokens + 2 × d: the pool weights p, then u and W u
  // Passage-reader models only (MODEL.md "Passage reader"), else null:
  // max_passage_tokens × (2r + head_dim + 16) + 2 · kPrefillRows · r: K, V,
  // RoPE rows (filled at init), 16 queries' scores, then a block's Q and O
  // (passage_reader.cpp).
  float* reader_buf;
  uint32_t* allowed;      // max_passage_tokens + 2 ids allowed at this step
  uint32_t* q_ids;        // max_question_tokens
  uint32_t* ans_ids;      // max_answer_tokens
  uint8_t* seen;          // ceil(V / 8): de-duplicates allowed ids
  // Top-k spans (options.max_top_k > 1 on an extractive start-pointer session),
  // else null: the decoding state right after prefill (forward_save), put back
  // before each further candidate start is decoded (forward_restore). Each
  // entry's buffers hold what decoding can still read: the last window − 1 KV
  // rows, the lin state, the MoE ring (amxqa.h amxqa_session_size).
  amxqa::LayerState* snap;  // n_layers entries
  uint32_t snap_pos;
  // The no-answer threshold in use (MODEL.md "No-answer decision") and the
  // one the session was made with (options override, else the model's).
  float no_answer_threshold, threshold_init;
  uint32_t sep_ids[amxqa::kMaxSepTokens];
  uint32_t n_sep;
  char error[256];
};

namespace amxqa {

// printf-style message for amxqa_last_error(session); never allocates.
void session_set_error(amxqa_session* s, const char* fmt, ...) __attribute__((format(printf, 2, 3)));

}  // namespace amxqa
