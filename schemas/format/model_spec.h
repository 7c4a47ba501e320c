// model_spec.h — the in-memory description of a model that the trainer, the
// tests, the fuzzers and the bench share (schemas/amxqa.fbs as C++ values).
// model_writer.h turns it into an .amxqa file; random_model.h makes one with
// random weights. Names follow schemas/MODEL.md.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "amxqa.h"            // AMXQA_VERSION_STRING
#include "kernels/kernels.h"  // DType, Layout

namespace amxqa {

enum : uint8_t { kLayerSwa = 0, kLayerLin = 1 };

// Special ids and token layout are fixed by MODEL.md.
enum : uint32_t { kPad = 0, kBos = 1, kEot = 2, kAns = 3, kAbstain = 4, kByteBase = 5, kMergeBase = 261 };

struct ArchConfig {
  uint32_t d_model = 64, n_layers = 2;
  std::vector<uint8_t> layer_kinds;  // kLayerSwa / kLayerLin, size n_layers
  uint32_t n_heads = 2, n_kv_heads = 1, head_dim = 32, window = 256, lin_state = 32, d_ff = 160;
  uint32_t moe_experts = 0, moe_top_k = 0, moe_d_ff = 0, moe_route_block = 64, moe_route_window = 64;
  std::vector<uint32_t> moe_layers;  // strictly increasing layer indices
  uint32_t vocab_size = 512;
  float rope_theta = 10000.f, norm_eps = 1e-5f;
  bool question_match = false;  // MODEL.md "Question match" (adds no parameter)
  bool start_pointer = false;   // MODEL.md "Start pointer" (adds no parameter)
  bool end_pointer = false;     // MODEL.md "End pointer" (adds no parameter; needs start_pointer)
  bool no_answer_head = false;  // MODEL.md "No-answer head" (adds no_answer_w; needs start_pointer)
  bool question_reread = false; // MODEL.md "Question re-read" (adds no parameter; prompt only)
  bool passage_reader = false;  // MODEL.md "Passage reader" (adds reader_w*; needs start_pointer)

  bool is_moe(uint32_t layer) const {
    for (uint32_t l : moe_layers) if (l == layer) return true;
    return false;
  }
};

// Byte-level BPE as trained: merges in rank order; merge r makes id kMergeBase + r.
struct TokenizerData {
  std::vector<std::pair<uint32_t, uint32_t>> merges;
  uint32_t max_chunk_len = 64;
  // Bytes of every id 0..vocab-1 (specials get "<|pad|>" etc.), derived from merges.
  std::vector<std::string> pieces(uint32_t vocab_size) const;
};

// One named tensor, given as f32 and written as `dtype`/`layout`.
struct TensorSpec {
  std::string name;
  std::vector<uint32_t> shape;
  std::vector<float> values;  // product(shape) floats, logical row-major
  DType dtype = DType::f32;
  Layout layout = Layout::plain;
  // i8 only: 7 stores q in [-63, 63] (scale = absmax / 63; MODEL.md "7-bit
  // weights"), 8 in [-127, 127] (scale = absmax / 127).
  uint8_t weight_bits = 8;
  // Already stored: when `stored` is not empty the writer copies these bytes
  // (dtype and layout as the file holds them) and, for i8, stored_scales (the
  // f32 per-row scales' bytes), instead of converting `values`, which stays
  // empty. read_model (model_reader.h) gives tensors this way, so a rewritten
  // file keeps its weights bit for bit.
  std::vector<uint8_t> stored, stored_scales;
};

struct Provenance {
  std::string trainer_version = AMXQA_VERSION_STRING, recipe, recipe_text, notes;
  std::vector<std::string> data_digests;
  uint64_t tokens_seen = 0;
  double wall_seconds = 0;
  std::vector<std::pair<std::string, float>> scores;
};

// schemas/MODEL.md "No-answer decision": the default threshold the file carries.
struct CalibrationSpec {
  bool present = false;
  float no_answer_threshold = 0.f;  // finite
  std::string method;
};

struct ModelSpec {
  ArchConfig arch;
  TokenizerData tokenizer;
  std::vector<uint8_t> vocab_mask;  // one byte per token here (0/1); packed to bits on write
  std::vector<TensorSpec> tensors;
  Provenance provenance;
  CalibrationSpec calibration;
  uint32_t format_version = 1;
};

}  // namespace amxqa
