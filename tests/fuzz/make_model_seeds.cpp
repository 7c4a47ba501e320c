// make_model_seeds.cpp — writes the model seeds of corpus/model_open/:
// the "micro" model (amxqa::fuzz::micro_model_spec: d 16, vocab 300; a few
// KiB, so most mutations land in structure rather than weights, and an
// input costs a fraction of a millisecond) in f32, bf16 and i8, the same
// with every pointer feature (micro_reader_spec: start and end pointers,
// no-answer head, passage reader) in bf16, and
// cut-down copies (header only, half a file). The tiny preset (d 64, 100 to
// 370 KiB) is left out: a seed that big made every execution 10x slower. Deterministic: rerunning it
// with Clang reproduces the committed files byte for byte (GCC rounds a few
// random weights differently; either set is a valid seed corpus).
//   fuzz_make_model_seeds tests/fuzz/corpus/model_open
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "format/model_writer.h"
#include "fuzz_support.h"

namespace {

using namespace amxqa;

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
    using amxqa::fuzz::micro_model_spec;
    const auto micro_bf16 = write_model(micro_model_spec(DType::bf16));
    put(dir, "micro_f32.amxqa", write_model(micro_model_spec(DType::f32)));
    put(dir, "micro_bf16.amxqa", micro_bf16);
    put(dir, "micro_i8.amxqa", write_model(micro_model_spec(DType::i8)));
    put(dir, "micro_reader_bf16.amxqa", write_model(amxqa::fuzz::micro_reader_spec(DType::bf16)));
    put(dir, "cut_header.bin", std::vector<uint8_t>(micro_bf16.begin(), micro_bf16.begin() + 64));
    put(dir, "cut_half.bin",
        std::vector<uint8_t>(micro_bf16.begin(), micro_bf16.begin() + micro_bf16.size() / 2));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fuzz_make_model_seeds: %s\n", e.what());
    return 1;
  }
  return 0;
}
