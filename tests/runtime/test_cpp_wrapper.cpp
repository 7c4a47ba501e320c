// test_cpp_wrapper.cpp — include/amxqa.hpp's reports say what the C API says:
// Model::info(), Model::scores() and cpu_info() fill their structs through
// amxqa_model_get_info / amxqa_model_scores / amxqa_cpu_query (an earlier
// wrapper zeroed struct_size first, so the library wrote nothing).
#include <doctest/doctest.h>

#include <cstring>
#include <string>
#include <vector>

#include "amxqa.hpp"
#include "format/model_writer.h"
#include "format/random_model.h"

TEST_SUITE("unit") {

TEST_CASE("amxqa.hpp: Model::info matches amxqa_model_get_info on the tiny model") {
  const std::vector<uint8_t> bytes = amxqa::write_model(amxqa::make_random_model("tiny", 1));
  const amxqa::Model m = amxqa::Model::open_bytes(bytes.data(), bytes.size());
  REQUIRE(m.ok());
  amxqa_model_info c = amxqa_model_info_init();
  REQUIRE(amxqa_model_get_info(m.get(), &c) == AMXQA_OK);
  const amxqa_model_info w = m.info();
  CHECK(w.struct_size == sizeof(amxqa_model_info));
  CHECK(w.d_model == 64);
  CHECK(w.d_model == c.d_model);
  CHECK(w.vocab_size == c.vocab_size);
  CHECK(w.n_layers == c.n_layers);
  CHECK(std::string(w.layer_kinds) == c.layer_kinds);
  CHECK(m.scores().size() == amxqa_model_scores(m.get(), nullptr, nullptr, 0));

  const amxqa::Model closed;
  CHECK(closed.info().d_model == 0);  // not open: zeroed
}

TEST_CASE("amxqa.hpp: cpu_info matches amxqa_cpu_query") {
  amxqa_cpu_info c = amxqa_cpu_info_init();
  amxqa_cpu_query(&c);
  const amxqa_cpu_info w = amxqa::cpu_info();
  CHECK(w.struct_size == sizeof(amxqa_cpu_info));
  CHECK(w.best == c.best);
  CHECK(w.has_avx2_fma == c.has_avx2_fma);
  CHECK(std::string(w.amx_reason) == c.amx_reason);
  CHECK(std::strlen(w.amx_reason) > 0);
}

}  // TEST_SUITE
