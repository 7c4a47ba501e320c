#include "fuzz_support.h"

#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "format/model_writer.h"
#include "format/random_model.h"
#include "ops/ops.h"  // kReaderHeads

namespace amxqa::fuzz {

AlignedCopy::AlignedCopy(const void* src, size_t size) : size_(size) {
  void* p = nullptr;
  // posix_memalign(…, 0) may return NULL or a unique pointer; ask for 1 byte
  // then so data() is never NULL (the library gets len 0 either way).
  if (posix_memalign(&p, 64, size ? size : 1) != 0) std::abort();
  data_ = static_cast<uint8_t*>(p);
  if (src && size) std::memcpy(data_, src, size);
}

AlignedCopy::~AlignedCopy() { std::free(data_); }

namespace {

// Opens `bytes` as a model, or aborts: the fixed models must open.
const amxqa_model* open_or_abort(const AlignedCopy& file, const AlignedCopy& storage, const char* name) {
  amxqa_model* m = nullptr;
  const amxqa_status st = amxqa_model_open(file.data(), file.size(), storage.data(), &m);
  if (st != AMXQA_OK) {
    std::fprintf(stderr, "fuzz: the %s model does not open: %s\n", name, amxqa_last_error(nullptr));
    std::abort();
  }
  return m;
}

// The micro models' weights: uniform in [-0.5, 0.5), from a 64-bit LCG.
float next_weight(uint64_t& state) {
  state = state * 6364136223846793005ull + 1442695040888963407ull;
  return float(int64_t(state >> 40) - (int64_t(1) << 23)) / float(1 << 23) * 0.5f;
}

}  // namespace

ModelSpec micro_model_spec(DType dtype) {
  ModelSpec spec = make_random_model("tiny", 11, dtype);
  ArchConfig& a = spec.arch;
  a.d_model = 16;
  a.n_heads = 1, a.n_kv_heads = 1, a.head_dim = 16, a.lin_state = 16, a.window = 8;
  a.d_ff = 16;
  a.moe_experts = 2, a.moe_top_k = 1, a.moe_d_ff = 16, a.moe_route_block = 4, a.moe_route_window = 4;
  const uint32_t d = a.d_model, H = a.n_heads, G = a.n_kv_heads, hd = a.head_dim, dk = a.lin_state;
  uint64_t state = 11;
  auto value = [&state] { return next_weight(state); };
  for (TensorSpec& t : spec.tensors) {
    const std::string& n = t.name;
    const bool lin = n.rfind("l0.", 0) == 0;  // layer 0 is lin, layer 1 swa
    const auto ends = [&n](const char* s) {
      const std::string suf(s);
      return n.size() >= suf.size() && n.compare(n.size() - suf.size(), suf.size(), suf) == 0;
    };
    if (n == "tok_emb") t.shape = {a.vocab_size, d};
    else if (ends("norm")) t.shape = {d};
    else if (ends(".wq")) t.shape = {H * (lin ? dk : hd), d};
    else if (ends(".wk")) t.shape = {lin ? H * dk : G * hd, d};
    else if (ends(".wv")) t.shape = {(lin ? H : G) * hd, d};
    else if (ends(".wo")) t.shape = {d, H * hd};
    else if (ends(".wa")) t.shape = {H, d};
    else if (ends(".ba")) t.shape = {H};
    else if (ends(".router")) t.shape = {a.moe_experts, d};
    else if (ends(".moe_w1")) t.shape = {a.moe_experts, a.moe_d_ff, d};
    else if (ends(".moe_w2")) t.shape = {a.moe_experts, d, a.moe_d_ff};
    else if (ends(".w1")) t.shape = {a.d_ff, d};
    else if (ends(".w2")) t.shape = {d, a.d_ff};
    else throw std::runtime_error("micro_model: unknown tensor " + n);
    size_t count = 1;
    for (uint32_t s : t.shape) count *= s;
    t.values.resize(count);
    const bool gain = ends("norm");
    for (float& v : t.values) v = gain ? 1.f + 0.1f * value() : value();
  }
  spec.provenance.recipe = "fuzz-seed-micro";
  return spec;
}

ModelSpec micro_reader_spec(DType dtype) {
  ModelSpec spec = micro_model_spec(dtype);
  ArchConfig& a = spec.arch;
  a.start_pointer = a.end_pointer = a.no_answer_head = a.passage_reader = true;
  const uint32_t d = a.d_model, r = ops::kReaderHeads * a.head_dim;
  uint64_t state = 13;
  auto tensor = [&](const char* name, uint32_t rows, uint32_t cols, bool matrix) {
    TensorSpec t;
    t.name = name;
    t.shape = {rows, cols};
    if (matrix) {  // the model's dtype and layout, as the writer stores matrices
      t.dtype = dtype;
      if (dtype == DType::bf16) t.layout = Layout::vnni2;
      if (dtype == DType::i8) t.layout = Layout::vnni4;
    }
    for (uint32_t i = 0; i < rows * cols; ++i) t.values.push_back(next_weight(state));
    spec.tensors.push_back(std::move(t));
  };
  tensor("no_answer_w", d, d, false);
  tensor("reader_wq", r, d, true);
  tensor("reader_wk", r, d, true);
  tensor("reader_wv", r, d, true);
  tensor("reader_wo", d, r, true);
  spec.provenance.recipe = "fuzz-seed-micro-reader";
  return spec;
}

const amxqa_model* micro_reader_model() {
  static const std::vector<uint8_t> bytes = write_model(micro_reader_spec(DType::bf16));
  static AlignedCopy file_copy(bytes.data(), bytes.size());
  static AlignedCopy storage_copy(AMXQA_MODEL_STORAGE_BYTES);
  static const amxqa_model* model = open_or_abort(file_copy, storage_copy, "micro reader");
  return model;
}

const amxqa_model* tiny_model() {
  // Function-local statics live until exit and stay reachable, so LeakSanitizer
  // is quiet (write-only globals were optimised away at -O2 and leaked); the
  // model view must outlive every session, including those in static storage.
  static const std::vector<uint8_t> bytes = write_model(make_random_model("tiny", 7));
  static AlignedCopy file_copy(bytes.data(), bytes.size());
  static AlignedCopy storage_copy(AMXQA_MODEL_STORAGE_BYTES);
  static const amxqa_model* model = open_or_abort(file_copy, storage_copy, "tiny");
  return model;
}

const amxqa_model* micro_model() {
  static const std::vector<uint8_t> bytes = write_model(micro_model_spec(DType::f32));
  static AlignedCopy file_copy(bytes.data(), bytes.size());
  static AlignedCopy storage_copy(AMXQA_MODEL_STORAGE_BYTES);
  static const amxqa_model* model = open_or_abort(file_copy, storage_copy, "micro");
  return model;
}

}  // namespace amxqa::fuzz
