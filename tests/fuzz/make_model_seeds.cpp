// make_model_seeds.cpp — writes the model seeds of corpus/model_open/:
// the tiny random model in bf16 and i8, a "micro" model (d 16, vocab
// 300; a few KiB, so most mutations land in structure rather than weights),
// and cut-down copies (header only, half a file). Deterministic: rerunning it
// with Clang reproduces the committed files byte for byte (GCC rounds a few
// random weights differently; either set is a valid seed corpus).
//   fuzz_make_model_seeds tests/fuzz/corpus/model_open
#include <cmath>
#include <cstdio>
#include <exception>
#include <stdexcept>
#include <string>
#include <vector>

#include "format/model_writer.h"
#include "format/random_model.h"

namespace {

using namespace amxqa;

// The tiny preset, shrunk: same tokenizer and tensor names, smaller widths.
ModelSpec micro_model(DType dtype) {
  ModelSpec spec = make_random_model("tiny", 11, dtype);
  ArchConfig& a = spec.arch;
  a.d_model = 16;
  a.n_heads = 1, a.n_kv_heads = 1, a.head_dim = 16, a.lin_state = 16, a.window = 8;
  a.d_ff = 16;
  a.moe_experts = 2, a.moe_top_k = 1, a.moe_d_ff = 16, a.moe_route_block = 4, a.moe_route_window = 4;
  const uint32_t d = a.d_model, H = a.n_heads, G = a.n_kv_heads, hd = a.head_dim, dk = a.lin_state;
  uint64_t state = 11;
  auto value = [&state] {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return float(int64_t(state >> 40) - (int64_t(1) << 23)) / float(1 << 23) * 0.5f;
  };
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

void put(const std::string& dir, const char* name, const std::vector<uint8_t>& bytes) {
  write_file(dir + "/" + name, bytes);
  std::printf("%s/%s: %zu bytes\n", dir.c_str(), name, bytes.size());
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s OUT_DIR\n", argv[0]);
    return 2;
  }
  const std::string dir = argv[1];
  try {
    const auto tiny_bf16 = write_model(make_random_model("tiny", 7, DType::bf16));
    // tiny f32 (370 KiB) is left out: f32 is covered by micro_f32, and a
    // big seed slows every execution.
    put(dir, "tiny_bf16.amxqa", tiny_bf16);
    put(dir, "tiny_i8.amxqa", write_model(make_random_model("tiny", 7, DType::i8)));
    put(dir, "micro_f32.amxqa", write_model(micro_model(DType::f32)));
    put(dir, "micro_bf16.amxqa", write_model(micro_model(DType::bf16)));
    put(dir, "micro_i8.amxqa", write_model(micro_model(DType::i8)));
    put(dir, "cut_header.bin", std::vector<uint8_t>(tiny_bf16.begin(), tiny_bf16.begin() + 64));
    put(dir, "cut_half.bin",
        std::vector<uint8_t>(tiny_bf16.begin(), tiny_bf16.begin() + tiny_bf16.size() / 2));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fuzz_make_model_seeds: %s\n", e.what());
    return 1;
  }
  return 0;
}
