// test_cpp_wrapper.cpp — include/amxqa.hpp's reports say what the C API says:
// Model::info(), Model::scores() and cpu_info() fill their structs through
// amxqa_model_get_info / amxqa_model_scores / amxqa_cpu_query (an earlier
// wrapper zeroed struct_size first, so the library wrote nothing). Its
// stream callback means what C's does (true stops), amxqa_session_set_options
// changes per-answer options within the session's caps, and no extractive
// answer is an empty span that is not an abstention.
#include <doctest/doctest.h>

#include <cmath>
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

namespace {
const char kPassage[] =
    "The lighthouse on the point was designed by Ada Byron in 1850 and rebuilt in 1901 after a storm.";
}

TEST_CASE("amxqa.hpp: answer_stream's callback returns true to stop, as C and Python") {
  const std::vector<uint8_t> bytes = amxqa::write_model(amxqa::make_random_model("tiny", 7));
  const amxqa::Model m = amxqa::Model::open_bytes(bytes.data(), bytes.size());
  REQUIRE(m.ok());
  amxqa::Session s = amxqa::Session::create(m);
  REQUIRE(s.ok());
  REQUIRE(s.set_threshold(INFINITY).ok());  // a span, so the callback is called
  amxqa::Answer a;
  size_t calls = 0;
  CHECK(s.answer_stream("Who designed it?", kPassage, [&](std::string_view) { return ++calls, false; }, &a) ==
        AMXQA_OK);
  const size_t all = calls;
  calls = 0;
  if (all > 0) {  // a span of white space trims to an abstention but still streams its tokens
    CHECK(s.answer_stream("Who designed it?", kPassage, [&](std::string_view) { return ++calls, true; }, &a) ==
          AMXQA_ERR_CANCELLED);
    CHECK(calls == 1);
  }
}

TEST_CASE("amxqa_session_set_options: per-answer options within the session's caps; NULL restores") {
  const std::vector<uint8_t> bytes = amxqa::write_model(amxqa::make_random_model("tiny", 7));
  const amxqa::Model m = amxqa::Model::open_bytes(bytes.data(), bytes.size());
  REQUIRE(m.ok());
  amxqa_session_options o = amxqa::default_options();
  o.max_passage_tokens = 64;
  o.max_top_k = 4;
  amxqa::Session s = amxqa::Session::create(m, o);
  REQUIRE(s.ok());
  std::string long_passage;
  for (int i = 0; i < 20; ++i) long_passage += kPassage;
  CHECK(s.answer("Who designed it?", long_passage).status.code == AMXQA_ERR_PASSAGE_TOO_LONG);
  amxqa_session_options w = o;
  w.windows = 1;
  w.window_overlap = 8;
  w.max_answer_tokens = 4;
  w.whole_words = 0;
  REQUIRE(amxqa_session_set_options(s.get(), &w) == AMXQA_OK);
  const amxqa::Answer windowed = s.answer("Who designed it?", long_passage);
  CHECK(windowed.status.code == AMXQA_OK);
  CHECK(windowed.info.windows > 1);
  CHECK(windowed.info.answer_tokens <= 4);
  REQUIRE(amxqa_session_set_options(s.get(), nullptr) == AMXQA_OK);
  CHECK(s.answer("Who designed it?", long_passage).status.code == AMXQA_ERR_PASSAGE_TOO_LONG);

  const auto refused = [&](void (*change)(amxqa_session_options*), const char* field) {
    amxqa_session_options b = o;
    change(&b);
    CHECK(amxqa_session_set_options(s.get(), &b) == AMXQA_ERR_INVALID_ARGUMENT);
    CHECK(std::string(amxqa_last_error(s.get())).find(field) != std::string::npos);
  };
  refused([](amxqa_session_options* b) { b->max_passage_tokens = 65; }, "max_passage_tokens");
  refused([](amxqa_session_options* b) { b->max_answer_tokens = 33; }, "max_answer_tokens");
  refused([](amxqa_session_options* b) { b->max_top_k = 5; }, "max_top_k");
  refused([](amxqa_session_options* b) { b->extractive = 0; }, "extractive");
  refused([](amxqa_session_options* b) { b->windows = 1, b->window_overlap = 64; }, "window_overlap");
  // Session::answer_topk: k over the session's max_top_k is an error, not a silent cap.
  std::vector<amxqa::Candidate> spans;
  amxqa::Answer a;
  CHECK(s.answer_topk("Who designed it?", "Ada Byron designed it.", 5, &spans, &a) == AMXQA_ERR_INVALID_ARGUMENT);
  CHECK(a.status.message.find("max_top_k") != std::string::npos);
  CHECK(s.answer_topk("Who designed it?", "Ada Byron designed it.", 4, &spans, &a) == AMXQA_OK);
  // A refused change changes nothing: the session still answers with its own options.
  CHECK(s.answer("Who designed it?", "Ada Byron designed it.").status.code == AMXQA_OK);
  CHECK(amxqa_session_set_options(nullptr, &o) == AMXQA_ERR_NULL_ARGUMENT);
}

TEST_CASE("no extractive answer is an empty span that is not an abstention, whatever the threshold") {
  // Many random models and questions at threshold +inf: some pick a start of
  // only white space, which must come back as an abstention with span 0, 0.
  size_t answered = 0, abstained = 0;
  for (uint64_t seed = 1; seed <= 6; ++seed) {
    const std::vector<uint8_t> bytes = amxqa::write_model(amxqa::make_random_model("tiny", seed));
    const amxqa::Model m = amxqa::Model::open_bytes(bytes.data(), bytes.size());
    REQUIRE(m.ok());
    amxqa::Session s = amxqa::Session::create(m);
    REQUIRE(s.ok());
    REQUIRE(s.set_threshold(INFINITY).ok());
    for (const char* q : {"Who?", "When was it rebuilt?", "What", "Where is the lighthouse?", "storm"}) {
      for (const char* p : {kPassage, "  a   b    c  ", "x \n\n\t y"}) {
        const amxqa::Answer a = s.answer(q, p);
        REQUIRE(a.status.code == AMXQA_OK);
        CHECK((a.abstained || a.span_end > a.span_begin));
        CHECK((a.abstained || !a.text.empty()));
        if (a.abstained) CHECK((a.span_begin == 0 && a.span_end == 0 && a.text.empty()));
        ++(a.abstained ? abstained : answered);
      }
    }
  }
  CHECK(answered > 0);
}

}  // TEST_SUITE
