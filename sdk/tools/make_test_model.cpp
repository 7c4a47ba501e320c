// make_test_model.cpp — amxqa-make-test-model: writes the deterministic tiny
// random model (make_random_model) the SDK tests and samples run against. It
// answers garbage, but with valid spans, through the full runtime path.
#include <cstdio>
#include <exception>
#include <filesystem>
#include <string>

#include "command_line.h"
#include "format/model_writer.h"
#include "format/random_model.h"

int main(int argc, char** argv) {
  static const char* kUsage =
      "usage: amxqa-make-test-model OUT.amxqa [SEED] [SHAPE]\n"
      "  SEED default 1; SHAPE tiny (default) or reference\n";
  std::string out, shape = "tiny";
  unsigned long long seed = 1;
  amxqa::command_line::App app("amxqa-make-test-model");
  app.add_option("out", out)->required();
  app.add_unsigned("seed", seed);
  app.add_option("shape", shape);
  if (const int rc = app.parse_or_usage(argc, argv, 1, kUsage); rc >= 0) return rc;
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
