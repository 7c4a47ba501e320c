// reference_model.h — what the model, ops and training benchmarks share,
// built once per process: the paper's reference-shape model (random bf16
// weights from make_random_model("reference"), or the file named by
// $AMXQA_BENCH_MODEL) written to a temporary file and mmap'd like a deployed
// model, the SQuAD dev questions, and the cost model (FLOPs per prefill token,
// weight bytes per decode token) the roofline fractions divide by.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "amxqa.h"
#include "kernels/kernels.h"

namespace amxqa::bench {

struct QaPair {
  std::string question, passage;
};

struct ReferenceModel {
  std::string path;    // the model file (mmap'd read-only)
  std::string source;  // how it was made, for the report
  const unsigned char* data = nullptr;
  size_t size = 0;  // mapped model bytes
  amxqa_model* model = nullptr;
  amxqa_model_info info = amxqa_model_info_init();
  DType weight_dtype = DType::f32;  // dtype of the layer matrices
};

// The shared model, or nullptr with *error set (e.g. $AMXQA_BENCH_MODEL names
// a file that does not open). Without $AMXQA_BENCH_MODEL it is generated with
// amxqa_format's make_random_model("reference", 1, bf16).
const ReferenceModel* reference_model(std::string* error);
// The shared model if a benchmark already built it, else nullptr (never builds).
const ReferenceModel* reference_model_if_built();

// $AMXQA_DATA (default <repo>/../shared/data) + /squad/dev-v1.1-open.json.gz
std::string squad_dev_path();
// The first question of every paragraph of the dev file, in file order;
// empty with *error set when the file is missing or malformed.
const std::vector<QaPair>& squad_dev_pairs(std::string* error);

// FLOPs to prefill a prompt of n tokens: 2 per matrix weight per token (MoE:
// the k routed experts), the lin decay projection, swa attention over the
// causal window (4·hd per query head per key) and the lin state update and
// read-out (5·dk·hd per head).
double prefill_flops(const amxqa_model& m, uint64_t n_tokens);

// Weight bytes one decode step reads: every layer matrix (MoE: k experts'
// share), the lin decay weights, one embedding row and `readout_rows` rows of
// the tied readout. The MoE router runs once per routing block, not per
// token, and is left out.
uint64_t decode_weight_bytes(const amxqa_model& m, uint32_t readout_rows);

// Bytes of a weight view's data (plus i8 row scales).
uint64_t weight_view_bytes(const WeightView& w);

}  // namespace amxqa::bench
