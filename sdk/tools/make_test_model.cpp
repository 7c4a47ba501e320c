// make_test_model.cpp — amxqa-make-test-model: writes the deterministic tiny
// random model (make_random_model) the SDK tests and samples run against. It
// answers garbage, but with valid spans, through the full runtime path.
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <string>

#include "format/model_writer.h"
#include "format/random_model.h"

int main(int argc, char** argv) {
  if (argc < 2 || argc > 4 || std::string(argv[1]) == "--help") {
    std::fprintf(stderr,
                 "usage: amxqa-make-test-model OUT.amxqa [SEED] [SHAPE]\n"
                 "  SEED default 1; SHAPE tiny (default) or reference\n");
    return argc < 2 || argc > 4 ? 2 : 0;
  }
  const std::string out = argv[1];
  char* end = nullptr;
  const unsigned long long seed = argc > 2 ? std::strtoull(argv[2], &end, 10) : 1;
  if (argc > 2 && (end == argv[2] || *end != '\0')) {
    std::fprintf(stderr, "amxqa-make-test-model: SEED must be an integer\n");
    return 2;
  }
  const std::string shape = argc > 3 ? argv[3] : "tiny";
  try {
    const std::filesystem::path parent = std::filesystem::path(out).parent_path();
    if (!parent.empty()) std::filesystem::create_directories(parent);
    amxqa::write_file(out, amxqa::write_model(amxqa::make_random_model(shape, seed)));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "amxqa-make-test-model: %s\n", e.what());
    return 1;
  }
  return 0;
}
