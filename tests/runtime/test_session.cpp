// test_session.cpp — the session: workspace sizing and placement, the forward
// pass (incremental == full), greedy extractive decoding against an
// independent oracle, the answer API's edge cases, determinism, streaming and
// the zero-allocation guarantee.
#include <cctype>
#include "support/session_fixture.h"
#include "support/alloc_counter.h"

using namespace amxqa;
using namespace amxqa::test;

namespace {

double max_abs_diff(const std::vector<float>& a, const std::vector<float>& b) {
  REQUIRE(a.size() == b.size());
  double m = 0;
  // (Not std::fmax: GCC 12's aarch64 vectoriser crashes on that reduction.
  // A NaN difference is skipped either way.)
  for (size_t i = 0; i < a.size(); ++i) {
    const double d = std::fabs(double(a[i]) - double(b[i]));
    m = d > m ? d : m;
  }
  return m;
}

std::vector<uint32_t> random_ids(Rng& r, size_t n, uint32_t V) {
  std::vector<uint32_t> ids{1};  // BOS
  while (ids.size() < n) ids.push_back(5 + static_cast<uint32_t>(r.below(V - 5)));
  return ids;
}

}  // namespace

TEST_SUITE("unit") {

TEST_CASE("session size: constant state, 16 bytes per passage token (+4(d+1) with the start pointer), reference under 2 MiB") {
  auto tiny = open_random("tiny");
  amxqa_session_options o = default_options(AMXQA_ISA_AUTO);
  o.max_passage_tokens = 4096;
  const size_t s4 = amxqa_session_size(tiny->model, &o);
  o.max_passage_tokens = 8192;
  const size_t s8 = amxqa_session_size(tiny->model, &o);
  CHECK(s4 > 0);
  CHECK(s8 - s4 == 4096u * 16u);
  CHECK(amxqa_session_size(tiny->model, nullptr) == s4);  // NULL options: the defaults

  auto ref = open_random("reference");
  o.max_passage_tokens = 4096;
  const size_t ref4 = amxqa_session_size(ref->model, &o);
  MESSAGE("reference-shape session at 4096 passage tokens: " << ref4 << " bytes");
  CHECK(ref4 > 0);
  CHECK(ref4 <= size_t(2) << 20);
  o.max_passage_tokens = 8192;
  CHECK(amxqa_session_size(ref->model, &o) - ref4 == 4096u * 16u);

  // A start-pointer model (MODEL.md "Start pointer") also keeps d + 1 floats per passage token.
  ModelSpec ptr_spec = make_random_model("tiny", 7);
  ptr_spec.arch.start_pointer = true;
  auto ptr = open_spec(ptr_spec);
  o.max_passage_tokens = 4096;
  const size_t p4 = amxqa_session_size(ptr->model, &o);
  o.max_passage_tokens = 8192;
  const size_t p8 = amxqa_session_size(ptr->model, &o);
  CHECK(p8 - p4 == 4096u * (16u + 4u * (ptr_spec.arch.d_model + 1)));

  // Invalid options or model: 0.
  amxqa_session_options bad = default_options();
  bad.max_answer_tokens = 0;
  CHECK(amxqa_session_size(tiny->model, &bad) == 0);
  bad = default_options();
  const uint32_t bogus_isa = 77;  // as a C caller could pass it
  std::memcpy(&bad.isa, &bogus_isa, sizeof bogus_isa);
  CHECK(amxqa_session_size(tiny->model, &bad) == 0);
  bad = default_options();
  bad.struct_size = 8;
  CHECK(amxqa_session_size(tiny->model, &bad) == 0);
  CHECK(amxqa_session_size(nullptr, &o) == 0);
}

TEST_CASE("session init: alignment, exact size, NULLs, ISA") {
  auto tm = open_random("tiny");
  const amxqa_session_options o = default_options();
  const size_t need = amxqa_session_size(tm->model, &o);
  Aligned mem(need + 64);
  amxqa_session* s = nullptr;
  CHECK(amxqa_session_init(tm->model, &o, mem.p, need - 1, &s) == AMXQA_ERR_WORKSPACE_TOO_SMALL);
  CHECK(s == nullptr);
  CHECK(std::string(amxqa_last_error(nullptr)).find("needs") != std::string::npos);
  CHECK(amxqa_session_init(tm->model, &o, mem.bytes() + 8, need, &s) == AMXQA_ERR_MISALIGNED);
  CHECK(amxqa_session_init(nullptr, &o, mem.p, need, &s) == AMXQA_ERR_NULL_ARGUMENT);
  CHECK(amxqa_session_init(tm->model, &o, nullptr, need, &s) == AMXQA_ERR_NULL_ARGUMENT);
  CHECK(amxqa_session_init(tm->model, &o, mem.p, need, nullptr) == AMXQA_ERR_NULL_ARGUMENT);
  amxqa_session_options bad = o;
  bad.max_question_tokens = 0;
  CHECK(amxqa_session_init(tm->model, &bad, mem.p, need, &s) == AMXQA_ERR_INVALID_ARGUMENT);
  REQUIRE(amxqa_session_init(tm->model, &o, mem.p, need, &s) == AMXQA_OK);
  CHECK(amxqa_session_isa(s) == AMXQA_ISA_SCALAR);
  amxqa_session_finish(s);
  amxqa_session_finish(s);  // twice is fine
  CHECK(amxqa_session_isa(nullptr) == AMXQA_ISA_AUTO);

  // AUTO resolves to what amxqa_cpu_query calls best.
  CHECK(amxqa_cpu_query(nullptr) == AMXQA_ERR_NULL_ARGUMENT);
  amxqa_cpu_info ci = amxqa_cpu_info_init();
  REQUIRE(amxqa_cpu_query(&ci) == AMXQA_OK);
  amxqa_session_options autoo = default_options(AMXQA_ISA_AUTO);
  REQUIRE(amxqa_session_init(tm->model, &autoo, mem.p, need, &s) == AMXQA_OK);
  CHECK(amxqa_session_isa(s) == ci.best);
  amxqa_session_finish(s);
  // Real AMX where the CPU lacks it is refused.
  if (!ci.has_amx) {
    amxqa_session_options amx = default_options(AMXQA_ISA_AMX);
    CHECK(amxqa_session_init(tm->model, &amx, mem.p, need, &s) == AMXQA_ERR_UNSUPPORTED_ISA);
  }
}

TEST_CASE("future format version is refused at open") {
  ModelSpec spec = make_random_model("tiny", 3);
  spec.format_version = AMXQA_FORMAT_VERSION + 1;
  const std::vector<uint8_t> bytes = write_model(spec);
  Aligned file(bytes.size()), storage(AMXQA_MODEL_STORAGE_BYTES);
  std::memcpy(file.p, bytes.data(), bytes.size());
  amxqa_model* m = nullptr;
  CHECK(amxqa_model_open(file.p, bytes.size(), storage.p, &m) == AMXQA_ERR_MODEL_VERSION);
}

TEST_CASE("incremental decode equals block prefill at every position") {
  for (DType dt : {DType::f32, DType::bf16, DType::i8}) {
    auto tm = open_random("tiny", dt, 11);
    auto ts = make_session(tm->model, default_options(AMXQA_ISA_SCALAR));
    REQUIRE(ts->status == AMXQA_OK);
    Rng r{5};
    // 200 positions: several prefill blocks, many KV-window shifts (window 32)
    // and MoE routing blocks (8) inside and across prefill blocks.
    const auto ids = random_ids(r, 200, tm->model->vocab_size);
    const auto full = all_logits(ts->s, ids, false);
    const auto inc = all_logits(ts->s, ids, true);
    INFO("dtype " << int(dt));
    CHECK(max_abs_diff(full, inc) <= 1e-4);
  }
}

TEST_CASE("incremental == full on every available backend (f32 weights)") {
  auto tm = open_random("tiny", DType::f32, 12);
  for (amxqa_isa isa : {AMXQA_ISA_AVX2, AMXQA_ISA_AVX512, AMXQA_ISA_AMX, AMXQA_ISA_AMX_EMULATED}) {
    auto ts = make_session(tm->model, default_options(isa));
    if (ts->status != AMXQA_OK) continue;
    Rng r{6};
    const auto ids = random_ids(r, 150, tm->model->vocab_size);
    INFO(amxqa_isa_name(isa));
    CHECK(max_abs_diff(all_logits(ts->s, ids, false), all_logits(ts->s, ids, true)) <= 1e-4);
  }
}

// With `reread`, the model reads the question again (MODEL.md "Question
// re-read"): the oracle's prompt (prompt_ids) has it, and every margin must
// differ from the same weights' without it, so the flag is live.
static void check_against_oracle(bool whole_words, bool reread = false) {
  ModelSpec spec = make_random_model("tiny", 21);
  auto once = open_spec(spec);
  spec.arch.question_reread = reread;
  auto tm = open_spec(spec);
  amxqa_session_options opt = default_options(AMXQA_ISA_SCALAR);
  opt.whole_words = whole_words;
  auto ts = make_session(tm->model, opt);
  auto os = make_session(once->model, opt);
  REQUIRE(ts->status == AMXQA_OK);
  REQUIRE(os->status == AMXQA_OK);
  INFO("whole_words " << whole_words << ", question re-read " << reread);
  Rng r{99};
  int answered = 0, abstained = 0, multi = 0;
  for (int i = 0; i < 40; ++i) {
    const std::string q = random_text(r, 1 + r.below(8));
    const std::string p = random_text(r, r.below(60));
    const Asked a = ask(ts->s, q, p);
    REQUIRE(a.status == AMXQA_OK);
    const Oracle o = oracle_extractive(ts->s, q, p);
    if (reread && !std::isinf(a.info.no_answer_margin))
      CHECK(ask(os->s, q, p).info.no_answer_margin != a.info.no_answer_margin);
    INFO("q=" << q << " p=" << p);
    CHECK(a.info.abstained == o.abstained);
    CHECK(a.info.stopped_on_eot == o.eot);
    CHECK(a.ids == o.tokens);
    CHECK(a.info.passage_tokens == encode_text(tm->model, p).size());
    CHECK(a.info.question_tokens == encode_text(tm->model, q).size());
    CHECK(a.info.isa == AMXQA_ISA_SCALAR);
    CHECK(a.info.mean_logprob <= 0.f);
    if (a.info.abstained) {
      ++abstained;
      CHECK(a.text.empty());
      CHECK(a.info.span_begin == 0);
      CHECK(a.info.span_end == 0);
      continue;
    }
    ++answered;
    multi += a.info.answer_tokens > 1;
    // The span: earliest candidate, exact passage bytes, whole UTF-8 characters,
    // ASCII white space trimmed.
    REQUIRE(a.info.span_end <= p.size());
    REQUIRE(a.info.span_begin <= a.info.span_end);
    const auto off = [&](size_t tok) {
      std::vector<uint32_t> ids(p.size() + 1), offs(p.size() + 1);
      const size_t n = encode(tm->model->tok, p.data(), p.size(), ids.data(), offs.data(),
                              ids.size());
      return tok < n ? size_t(offs[tok]) : p.size();
    };
    size_t b = off(o.span_first), e = off(o.span_last + 1);
    // Never inside a UTF-8 character: widen to whole characters.
    const auto cont = [&](size_t i) { return i < p.size() && (static_cast<uint8_t>(p[i]) & 0xC0) == 0x80; };
    while (b > 0 && cont(b)) --b;
    while (cont(e)) ++e;
    while (b < e && is_ascii_space(p[b])) ++b;
    while (e > b && is_ascii_space(p[e - 1])) --e;
    CHECK(a.info.span_begin == b);
    CHECK(a.info.span_end == e);
    CHECK(p.compare(a.info.span_begin, a.info.span_end - a.info.span_begin, a.text) == 0);
    if (!a.text.empty()) {
      CHECK_FALSE(is_ascii_space(a.text.front()));
      CHECK_FALSE(is_ascii_space(a.text.back()));
    }
    if (whole_words && !a.text.empty()) {
      // Never inside an ASCII word: alnum on both sides of either edge.
      auto alnum = [&](size_t i) { return std::isalnum(static_cast<unsigned char>(p[i])) != 0; };
      const size_t b0 = a.info.span_begin, e0 = a.info.span_end;
      CHECK_FALSE((b0 > 0 && alnum(b0 - 1) && alnum(b0)));
      if (a.info.stopped_on_eot) CHECK_FALSE((e0 < p.size() && alnum(e0 - 1) && alnum(e0)));
    }
  }
  MESSAGE("answered " << answered << " (multi-token " << multi << "), abstained " << abstained);
  CHECK(answered > 0);
}

TEST_CASE("greedy extractive decoding matches the oracle; answers are exact passage bytes") {
  check_against_oracle(true);
}

TEST_CASE("the same with whole_words off: spans may split words") { check_against_oracle(false); }

TEST_CASE("the same for a model that re-reads the question: prompt BOS q sep p sep q ANS") {
  if (!kSanitizedBuild) check_against_oracle(true, true);  // the decoder is the one above
}

TEST_CASE("vocabulary mask: masked ids are never emitted") {
  ModelSpec spec = make_random_model("tiny", 31);
  // Forbid every byte id of a lower-case letter: only merges and others remain.
  for (int c = 'a'; c <= 'z'; ++c) spec.vocab_mask[kByteBase + c] = 0;
  auto tm = open_spec(spec);
  auto ts = make_session(tm->model, default_options(AMXQA_ISA_SCALAR));
  REQUIRE(ts->status == AMXQA_OK);
  Rng r{4};
  for (int i = 0; i < 20; ++i) {
    const std::string q = random_text(r, 4), p = random_text(r, 40);
    const Asked a = ask(ts->s, q, p);
    REQUIRE(a.status == AMXQA_OK);
    for (uint32_t id : a.ids) CHECK_FALSE((id >= kByteBase + 'a' && id <= kByteBase + 'z'));
    const Oracle o = oracle_extractive(ts->s, q, p);
    std::string sa, so;
    for (auto id : a.ids) sa += std::to_string(id) + " ";
    for (auto id : o.tokens) so += std::to_string(id) + " ";
    INFO("api: " << sa << (a.info.abstained ? "ABSTAIN" : "") << " oracle: " << so << (o.abstained ? "ABSTAIN" : ""));
    CHECK(a.ids == o.tokens);
  }
}

TEST_CASE("max_answer_tokens caps decoding") {
  auto tm = open_random("tiny", DType::f32, 41);
  amxqa_session_options o = default_options();
  o.max_answer_tokens = 2;
  auto ts = make_session(tm->model, o);
  REQUIRE(ts->status == AMXQA_OK);
  Rng r{8};
  for (int i = 0; i < 20; ++i) {
    const std::string q = random_text(r, 3), p = random_text(r, 30);
    const Asked a = ask(ts->s, q, p);
    REQUIRE(a.status == AMXQA_OK);
    CHECK(a.info.answer_tokens <= 2);
    CHECK(a.ids == oracle_extractive(ts->s, q, p).tokens);
  }
}

TEST_CASE("bad inputs get status codes") {
  auto tm = open_random("tiny");
  amxqa_session_options o = default_options();
  o.max_passage_tokens = 16;
  o.max_question_tokens = 8;
  auto ts = make_session(tm->model, o);
  REQUIRE(ts->status == AMXQA_OK);
  amxqa_session* s = ts->s;
  char out[64];
  amxqa_answer_info info = amxqa_answer_info_init();
  const std::string p = "the river was founded by the sea";
  CHECK(amxqa_answer(nullptr, "q", 1, "p", 1, out, sizeof out, &info) == AMXQA_ERR_NULL_ARGUMENT);
  CHECK(amxqa_answer(s, nullptr, 3, "p", 1, out, sizeof out, &info) == AMXQA_ERR_NULL_ARGUMENT);
  CHECK(amxqa_answer(s, "q", 1, nullptr, 3, out, sizeof out, &info) == AMXQA_ERR_NULL_ARGUMENT);
  CHECK(amxqa_answer(s, "q", 1, "p", 1, nullptr, 8, &info) == AMXQA_ERR_NULL_ARGUMENT);
  CHECK(amxqa_answer_stream(s, "q", 1, "p", 1, nullptr, nullptr, &info) ==
        AMXQA_ERR_NULL_ARGUMENT);
  CHECK(amxqa_answer(s, "", 0, p.data(), p.size(), out, sizeof out, &info) ==
        AMXQA_ERR_EMPTY_QUESTION);
  CHECK(std::string(amxqa_last_error(s)).find("empty") != std::string::npos);

  Rng r1{1};
  const std::string long_p = random_text(r1, 40);
  CHECK(amxqa_answer(s, "who", 3, long_p.data(), long_p.size(), out, sizeof out, &info) ==
        AMXQA_ERR_PASSAGE_TOO_LONG);
  CHECK(info.passage_tokens == encode_text(tm->model, long_p).size());  // the needed count
  const std::string long_q = "who wrote the river and the sea at north Paris when";
  CHECK(amxqa_answer(s, long_q.data(), long_q.size(), p.data(), p.size(), out, sizeof out,
                     &info) == AMXQA_ERR_QUESTION_TOO_LONG);
  CHECK(info.question_tokens == encode_text(tm->model, long_q).size());

  // Empty passage (NULL with 0 bytes too): an abstention.
  for (const char* empty : {"", static_cast<const char*>(nullptr)}) {
    std::memset(out, 'x', sizeof out);
    REQUIRE(amxqa_answer(s, "who", 3, empty, 0, out, sizeof out, &info) == AMXQA_OK);
    CHECK(info.abstained == 1);
    CHECK(out[0] == '\0');
  }

  // Invalid UTF-8 and NUL bytes are ordinary input, and answers are their bytes.
  auto ts2 = make_session(tm->model, default_options());
  REQUIRE(ts2->status == AMXQA_OK);
  const std::string weird("\xff\xfe\0abc\0 the\x80\xc3 river \xe6\x97", 22);
  const std::string weird_q("wh\0o\xc0?", 6);
  const Asked a = ask(ts2->s, weird_q, weird);
  REQUIRE(a.status == AMXQA_OK);
  CHECK(a.ids == oracle_extractive(ts2->s, weird_q, weird).tokens);
  if (!a.info.abstained) CHECK(a.info.span_end <= weird.size());

  // Output too small: truncated, NUL-terminated prefix; info still filled.
  Rng r{17};
  bool tested_truncation = false;
  for (int i = 0; i < 40 && !tested_truncation; ++i) {
    const std::string q = random_text(r, 3), pp = random_text(r, 30);
    const Asked full = ask(ts2->s, q, pp);
    if (full.info.abstained || full.text.size() < 2) continue;
    char small[2] = {'#', '#'};
    amxqa_answer_info si = amxqa_answer_info_init();
    CHECK(amxqa_answer(ts2->s, q.data(), q.size(), pp.data(), pp.size(), small, 2, &si) ==
          AMXQA_ERR_OUTPUT_TOO_SMALL);
    CHECK(small[0] == full.text[0]);
    CHECK(small[1] == '\0');
    CHECK(si.span_begin == full.info.span_begin);
    CHECK(si.span_end == full.info.span_end);
    CHECK(amxqa_answer(ts2->s, q.data(), q.size(), pp.data(), pp.size(), small, 0, &si) ==
          AMXQA_ERR_OUTPUT_TOO_SMALL);
    CHECK(small[0] == full.text[0]);  // outcap 0: nothing written
    tested_truncation = true;
  }
  CHECK(tested_truncation);

  // A finished session refuses to answer.
  amxqa_session_finish(ts2->s);
  CHECK(amxqa_answer(ts2->s, "q", 1, "p", 1, out, sizeof out, &info) ==
        AMXQA_ERR_INVALID_ARGUMENT);
  ts2->s = nullptr;
}

TEST_CASE("determinism: the same input twice gives byte-identical results") {
  auto tm = open_random("tiny", DType::bf16, 51);
  auto ts = make_session(tm->model, default_options(AMXQA_ISA_AUTO));
  REQUIRE(ts->status == AMXQA_OK);
  Rng r{23};
  for (int i = 0; i < 10; ++i) {
    const std::string q = random_text(r, 5), p = random_text(r, 50);
    Asked a = ask(ts->s, q, p), b = ask(ts->s, q, p);
    a.info.prefill_ns = b.info.prefill_ns = a.info.decode_ns = b.info.decode_ns = 0;
    CHECK(a.status == b.status);
    CHECK(a.text == b.text);
    CHECK(a.ids == b.ids);
    CHECK(std::memcmp(&a.info, &b.info, sizeof a.info) == 0);
  }
}

TEST_CASE("streaming: tokens are passage slices; cancel stops") {
  auto tm = open_random("tiny", DType::f32, 61);
  auto ts = make_session(tm->model, default_options());
  REQUIRE(ts->status == AMXQA_OK);
  struct Collect {
    std::string bytes;
    int calls = 0, cancel_at = -1;
  };
  auto cb = [](void* user, const char* bytes, size_t len) -> int {
    auto* c = static_cast<Collect*>(user);
    c->bytes.append(bytes, len);
    return ++c->calls == c->cancel_at;
  };
  Rng r{31};
  int checked = 0;
  for (int i = 0; i < 30; ++i) {
    const std::string q = random_text(r, 4), p = random_text(r, 40);
    const Asked a = ask(ts->s, q, p);
    Collect c;
    amxqa_answer_info info = amxqa_answer_info_init();
    REQUIRE(amxqa_answer_stream(ts->s, q.data(), q.size(), p.data(), p.size(), cb, &c, &info) ==
            AMXQA_OK);
    CHECK(c.calls == int(info.answer_tokens));
    CHECK(info.span_begin == a.info.span_begin);
    CHECK(info.span_end == a.info.span_end);
    if (info.abstained) continue;
    // Untrimmed concatenation of the span's tokens; trimmed, it is the answer,
    // which may be wider by the bytes that complete a split UTF-8 character.
    size_t b = 0, e = c.bytes.size();
    while (b < e && is_ascii_space(c.bytes[b])) ++b;
    while (e > b && is_ascii_space(c.bytes[e - 1])) --e;
    const std::string streamed = c.bytes.substr(b, e - b);
    CHECK(a.text.find(streamed) != std::string::npos);
    CHECK(a.text.size() - streamed.size() <= 6);
    if (info.answer_tokens >= 2) {
      Collect stop;
      stop.cancel_at = 1;
      CHECK(amxqa_answer_stream(ts->s, q.data(), q.size(), p.data(), p.size(), cb, &stop,
                                &info) == AMXQA_ERR_CANCELLED);
      CHECK(stop.calls == 1);
      ++checked;
    }
  }
  CHECK(checked > 0);
}

TEST_CASE("free mode: detokenised generation, no span") {
  auto tm = open_random("tiny", DType::f32, 71);
  amxqa_session_options o = default_options();
  o.extractive = 0;
  o.max_answer_tokens = 6;
  auto ts = make_session(tm->model, o);
  REQUIRE(ts->status == AMXQA_OK);
  Rng r{41};
  for (int i = 0; i < 10; ++i) {
    const std::string q = random_text(r, 4), p = random_text(r, 20);
    const Asked a = ask(ts->s, q, p);
    REQUIRE(a.status == AMXQA_OK);
    CHECK(a.info.span_begin == 0);
    CHECK(a.info.span_end == 0);
    std::string expect;
    for (uint32_t id : a.ids) {
      CHECK(oracle_generatable(tm->model, id, true));
      size_t len = 0;
      const char* b = amxqa_token_bytes(tm->model, id, &len);
      expect.append(b, len);
    }
    if (expect.find('\0') == std::string::npos) CHECK(a.text == expect);
  }
}

TEST_CASE("no allocation while answering, with and without the question re-read") {
  for (const bool reread : {false, true}) {
    ModelSpec spec = make_random_model("tiny", 81, DType::bf16);
    spec.arch.question_reread = reread;
    auto tm = open_spec(spec);
    auto ts = make_session(tm->model, default_options(AMXQA_ISA_AUTO));
    REQUIRE(ts->status == AMXQA_OK);
    amxqa_session_options fo = default_options(AMXQA_ISA_AUTO);
    fo.extractive = 0;
    auto tf = make_session(tm->model, fo);
    REQUIRE(tf->status == AMXQA_OK);
    Rng r{3};
    std::vector<std::pair<std::string, std::string>> pairs;
    for (int i = 0; i < 30; ++i) pairs.emplace_back(random_text(r, 1 + r.below(10)), random_text(r, r.below(200)));
    char out[512];
    amxqa_answer_info info = amxqa_answer_info_init();
    auto cb = [](void*, const char*, size_t) { return 0; };
    test::AllocScope scope;
    for (const auto& qp : pairs) {
      amxqa_answer(ts->s, qp.first.data(), qp.first.size(), qp.second.data(), qp.second.size(), out,
                   sizeof out, &info);
      amxqa_answer_stream(ts->s, qp.first.data(), qp.first.size(), qp.second.data(),
                          qp.second.size(), cb, nullptr, &info);
      amxqa_answer(tf->s, qp.first.data(), qp.first.size(), qp.second.data(), qp.second.size(), out,
                   sizeof out, &info);
    }
    amxqa_answer(ts->s, "", 0, "x", 1, out, sizeof out, &info);  // error paths too
    amxqa_answer(ts->s, "q", 1, pairs[0].second.data(), pairs[0].second.size(), out, 1, &info);
    AMXQA_CHECK_NO_ALLOCATIONS(scope);
  }
}

}  // TEST_SUITE
