// model.h — the runtime's verified, zero-copy view of an .amxqa file. Built by
// amxqa_model_open() (runtime/model/model_open.cpp) inside caller storage; after
// validation every pointer and size here is safe to index without checks.
#pragma once
#include <cstdint>

#include "amxqa.h"
#include "kernels/kernels.h"
#include "tokenizer/tokenizer.h"

namespace amxqa {

constexpr uint32_t kMaxLayers = 32;
constexpr uint32_t kMaxDModel = 4096;
constexpr uint32_t kMaxHeads = 64;
constexpr uint32_t kMaxHeadDim = 256;
constexpr uint32_t kMaxExperts = 1024;
constexpr uint32_t kMaxTopK = 16;
constexpr uint32_t kMaxVocab = 1u << 20;
constexpr uint32_t kMaxWindow = 1u << 16;
constexpr uint32_t kMaxDff = 1u << 16;

struct LayerWeights {
  uint8_t kind = 0;        // 0 swa, 1 lin
  bool moe = false;
  const float* attn_norm = nullptr;
  const float* ffn_norm = nullptr;
  WeightView wq, wk, wv, wo;
  const float* wa = nullptr;  // lin: [H, d]
  const float* ba = nullptr;  // lin: [H]
  WeightView w1, w2;          // dense MLP
  const float* router = nullptr;  // MoE: [E, d]
  WeightView moe_w1, moe_w2;      // MoE: stacked [E*f, d] and [E*d, f]; see expert_view()
};

}  // namespace amxqa

struct amxqa_model {
  uint32_t magic;  // kModelMagic while open
  // architecture (MODEL.md notation)
  uint32_t d_model, n_layers, n_heads, n_kv_heads, head_dim, window, lin_state, d_ff;
  uint32_t moe_experts, moe_top_k, moe_d_ff, moe_route_block, moe_route_window;
  uint32_t vocab_size;
  float rope_theta, norm_eps;
  bool question_match;  // MODEL.md "Question match"
  bool start_pointer;   // MODEL.md "Start pointer"
  bool end_pointer;     // MODEL.md "End pointer" (only with start_pointer)
  bool no_answer_head;  // MODEL.md "No-answer head" (only with start_pointer)
  bool question_reread; // MODEL.md "Question re-read": prompt BOS q sep p sep q ANS
  bool passage_reader;  // MODEL.md "Passage reader" (only with start_pointer)
  uint32_t bos, eot, ans, abstain, pad;
  float no_answer_threshold;  // MODEL.md "No-answer decision" (0 without a calibration)
  amxqa::TokenizerView tok;
  const uint8_t* vocab_mask;  // ceil(V/8) bytes
  amxqa::WeightView tok_emb;
  const float* final_norm;
  const float* no_answer_w;   // [d, d] f32 with no_answer_head, else null
  // MODEL.md "Passage reader" (empty views without it): wq/wk/wv [r, d],
  // wo [d, r], r = ops::kReaderHeads · head_dim.
  amxqa::WeightView reader_wq, reader_wk, reader_wv, reader_wo;
  amxqa::LayerWeights layers[amxqa::kMaxLayers];
  const void* fb_root;        // const amxqa::fb::Model*
  const uint8_t* data;
  size_t size;
};

namespace amxqa {
constexpr uint32_t kModelMagic = 0x51584d41;  // "AMXQ"

// View of expert e inside a stacked [E * rows_per_expert, cols] tensor.
WeightView expert_view(const WeightView& stacked, uint32_t e, uint32_t rows_per_expert);

// Token id may be generated under the static vocabulary mask.
inline bool vocab_allowed(const amxqa_model& m, uint32_t id) {
  return (m.vocab_mask[id >> 3] >> (id & 7)) & 1u;
}
}  // namespace amxqa
