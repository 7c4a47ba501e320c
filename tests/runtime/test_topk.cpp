// test_topk.cpp — amxqa_answer_topk and passage windows (amxqa.h "Top-k spans
// and long passages", schemas/MODEL.md "Top-k spans and windows"): spans[0] is
// amxqa_answer's answer, the others are the next allowed starts each decoded
// greedily (checked against an oracle on the full-sequence forward), distinct,
// scored as probabilities; argument errors get status codes; passages over the
// token cap are answered in windows when asked to; nothing allocates.
#include <algorithm>
#include <cmath>
#include <cstddef>

#include "support/session_fixture.h"
#include "support/alloc_counter.h"

using namespace amxqa;
using namespace amxqa::test;

namespace {

std::unique_ptr<TestModel> pointer_model(uint64_t seed = 7, bool question_reread = false) {
  ModelSpec spec = make_random_model("tiny", seed);
  spec.arch.start_pointer = true;
  spec.arch.question_reread = question_reread;
  return open_spec(spec);
}

amxqa_session_options topk_options(uint32_t max_top_k, float threshold = NAN) {
  amxqa_session_options o = default_options();
  o.max_top_k = static_cast<uint8_t>(max_top_k);
  if (!std::isnan(threshold)) {
    o.override_threshold = 1;
    o.no_answer_threshold = threshold;
  }
  return o;
}

struct Pair {
  std::string q, p;
};
std::vector<Pair> pairs(size_t n, uint64_t seed = 11, size_t max_words = 40) {
  Rng r{seed};
  std::vector<Pair> out;
  for (size_t i = 0; i < n; ++i)
    out.push_back({random_text(r, 3 + r.below(6)), random_text(r, 8 + r.below(max_words))});
  return out;
}

struct TopK {
  amxqa_status status = AMXQA_ERR_INTERNAL;
  std::vector<amxqa_span> spans;
  amxqa_answer_info info = amxqa_answer_info_init();
};

TopK topk(amxqa_session* s, const std::string& q, const std::string& p, size_t k) {
  TopK t;
  t.spans.assign(k, amxqa_span_init());
  size_t n = 12345;
  t.status = amxqa_answer_topk(s, q.data(), q.size(), p.data(), p.size(), t.spans.data(), k, &n,
                               &t.info);
  REQUIRE(n <= k);
  t.spans.resize(n);
  return t;
}

// Byte-identical answer infos apart from the timings (the library zeroes
// the padding, so memcmp is exact).
void check_same_info(amxqa_answer_info a, amxqa_answer_info b) {
  a.prefill_ns = b.prefill_ns = a.decode_ns = b.decode_ns = 0;
  CAPTURE(a.span_begin);
  CAPTURE(b.span_begin);
  CAPTURE(a.probability);
  CAPTURE(b.probability);
  CHECK(std::memcmp(&a, &b, sizeof a) == 0);
}

// Distinct, inside the passage, scores in [0, 1], spans[1 …] by non-increasing score.
void check_list(const TopK& t, const std::string& p) {
  for (size_t i = 0; i < t.spans.size(); ++i) {
    const amxqa_span& v = t.spans[i];
    CAPTURE(i);
    CHECK(v.struct_size == sizeof(amxqa_span));
    CHECK(v.begin <= v.end);
    CHECK(v.end <= p.size());
    CHECK(v.score >= 0.f);
    CHECK(v.score <= 1.f);
    if (i > 0) CHECK(v.begin < v.end);
    // Never inside a UTF-8 character.
    const auto cont = [&](uint64_t at) { return at < p.size() && (static_cast<uint8_t>(p[at]) & 0xC0) == 0x80; };
    CHECK_FALSE(cont(v.begin));
    CHECK_FALSE(cont(v.end));
    if (i > 1) CHECK(v.score <= t.spans[i - 1].score);
    for (size_t j = 0; j < i; ++j)
      CHECK_FALSE((t.spans[j].begin == v.begin && t.spans[j].end == v.end));
  }
}

// ---- An oracle for the candidate spans, written from MODEL.md ------------
// The allowed starts ranked by the session's step-1 scores (s->pass_z, left
// by the call), each decoded greedily on the full-sequence forward.
struct OracleSpan {
  size_t begin = 0, end = 0;
  double logprob = 0;
};

OracleSpan oracle_from(amxqa_session* s, const std::string& q, const std::string& p,
                       const std::vector<uint32_t>& ids, const std::vector<uint32_t>& offs,
                       const OracleWords& words, size_t start, double step1) {
  const amxqa_model* m = s->model;
  const size_t n = ids.size();
  std::vector<uint32_t> seq = prompt_ids(m, q, p);
  seq.push_back(ids[start]);
  size_t last = start, tokens = 1;
  double lp = step1;
  for (;;) {
    if (tokens == s->opt.max_answer_tokens) break;
    const bool can_go = last + 1 < n && oracle_generatable(m, ids[last + 1], s->opt.use_vocab_mask);
    if (!can_go) break;
    const bool can_end = words.edge_ok(last + 1 < n ? offs[last + 1] : p.size());
    const auto z = all_logits(s, seq);
    const float* row = z.data() + (seq.size() - 1) * s->dim.V;
    const float zc = row[ids[last + 1]], ze = row[m->eot];
    double lse = zc;
    if (can_end) lse = std::max<double>(zc, ze) + std::log(std::exp(zc - std::max<double>(zc, ze)) +
                                                             std::exp(ze - std::max<double>(zc, ze)));
    const bool eot = can_end && (ze > zc || (ze == zc && m->eot < ids[last + 1]));
    lp += (eot ? ze : zc) - lse;
    if (eot) break;
    ++last;
    ++tokens;
    seq.push_back(ids[last]);
  }
  OracleSpan o;
  o.logprob = lp;
  size_t b = offs[start], e = last + 1 < n ? offs[last + 1] : p.size();
  const auto cont = [&](size_t i) { return i < p.size() && (static_cast<uint8_t>(p[i]) & 0xC0) == 0x80; };
  for (int k = 0; k < 3 && b > 0 && cont(b); ++k) --b;
  for (int k = 0; k < 3 && cont(e); ++k) ++e;
  while (b < e && is_ascii_space(p[b])) ++b;
  while (e > b && is_ascii_space(p[e - 1])) --e;
  o.begin = b;
  o.end = e;
  return o;
}

}  // namespace

TEST_SUITE("unit") {

TEST_CASE("top-k: spans[0] is amxqa_answer's answer, on many random inputs") {
  for (bool pointer : {true, false}) {
    auto tm = pointer ? pointer_model() : open_random("tiny");
    for (float tau : {NAN, INFINITY}) {
      CAPTURE(pointer);
      CAPTURE(tau);
      auto plain = make_session(tm->model, topk_options(1, tau));
      auto ks = make_session(tm->model, topk_options(6, tau));
      REQUIRE(plain->status == AMXQA_OK);
      REQUIRE(ks->status == AMXQA_OK);
      size_t answered = 0, several = 0;
      for (const Pair& pr : pairs(24)) {
        const Asked a = ask(plain->s, pr.q, pr.p);
        REQUIRE(a.status == AMXQA_OK);
        for (amxqa_session* s : {plain->s, ks->s}) {
          const TopK t = topk(s, pr.q, pr.p, 6);
          REQUIRE(t.status == AMXQA_OK);
          check_same_info(a.info, t.info);
          check_list(t, pr.p);
          if (a.info.abstained) {
            CHECK(t.spans.empty());
            continue;
          }
          REQUIRE(!t.spans.empty());
          CHECK(t.spans[0].begin == a.info.span_begin);
          CHECK(t.spans[0].end == a.info.span_end);
          CHECK(t.spans[0].score == a.info.probability);
          CHECK(t.spans[0].answer_tokens == a.info.answer_tokens);
          CHECK(t.spans[0].window == 0);
          // One span without the pointer or with max_top_k 1.
          if (!pointer || s == plain->s) CHECK(t.spans.size() == 1);
          if (s == ks->s) {
            ++answered;
            several += t.spans.size() > 1;
          }
        }
        // And amxqa_answer itself is unchanged by a top-k session.
        const Asked b = ask(ks->s, pr.q, pr.p);
        check_same_info(a.info, b.info);
        CHECK(a.text == b.text);
      }
      MESSAGE("answered " << answered << ", with several spans " << several);
      if (pointer && std::isinf(tau)) CHECK(several > answered / 2);
    }
  }
}

TEST_CASE("top-k: the other spans are the next allowed starts decoded greedily (oracle)") {
  auto tm = pointer_model(19);
  amxqa_session_options o = topk_options(128, INFINITY);
  o.max_answer_tokens = 5;
  auto ts = make_session(tm->model, o);
  REQUIRE(ts->status == AMXQA_OK);
  amxqa_session* s = ts->s;
  size_t checked = 0;
  for (const Pair& pr : pairs(5, 23, 16)) {
    const TopK t = topk(s, pr.q, pr.p, 128);
    REQUIRE(t.status == AMXQA_OK);
    // The call leaves its step-1 scores in pass_z: rank the allowed starts.
    const auto ids = encode_text(tm->model, pr.p);
    std::vector<uint32_t> offs(ids.size() + 1), tmp(ids.size() + 1);
    encode(tm->model->tok, pr.p.data(), pr.p.size(), tmp.data(), offs.data(), tmp.size());
    const OracleWords words(pr.p);
    const size_t n = ids.size();
    std::vector<size_t> starts;
    for (size_t i = 0; i < n; ++i)
      if (oracle_generatable(tm->model, ids[i], true) && words.edge_ok(offs[i])) starts.push_back(i);
    const float* z = s->pass_z;
    std::stable_sort(starts.begin(), starts.end(), [&](size_t a, size_t b) { return z[a] > z[b]; });
    double zmax = z[n] - double(INFINITY);  // ABSTAIN shifted by +inf: weight 0
    for (size_t i : starts) zmax = std::max<double>(zmax, z[i]);
    double sum = 0;
    for (size_t i : starts) sum += std::exp(z[i] - zmax);
    const double lse = zmax + std::log(sum);
    std::vector<OracleSpan> want;
    for (size_t r = 0; r < starts.size() && r < 128; ++r) {
      const OracleSpan os = oracle_from(s, pr.q, pr.p, ids, offs, words, starts[r], z[starts[r]] - lse);
      if (r > 0 && os.begin == os.end) continue;
      bool dup = false;
      for (size_t i = 0; i < want.size(); ++i)
        if (want[i].begin == os.begin && want[i].end == os.end) {
          dup = true;  // a duplicate keeps the better score, but spans[0] keeps its own
          if (i > 0 && os.logprob > want[i].logprob) want[i].logprob = os.logprob;
        }
      if (!dup) want.push_back(os);
    }
    REQUIRE(!want.empty());
    if (want[0].begin == want[0].end) {  // the greedy span is only white space: an abstention
      CHECK(t.info.abstained == 1);
      CHECK(t.spans.empty());
      continue;
    }
    REQUIRE(!t.info.abstained);
    REQUIRE(t.spans.size() == want.size());
    CHECK(t.spans[0].begin == want[0].begin);
    CHECK(t.spans[0].end == want[0].end);
    // spans[1 …]: the same set; compare sorted by position.
    auto by_pos = [](const auto& a, const auto& b) {
      return a.begin != b.begin ? a.begin < b.begin : a.end < b.end;
    };
    std::vector<amxqa_span> got(t.spans.begin() + 1, t.spans.end());
    std::vector<OracleSpan> exp(want.begin() + 1, want.end());
    std::sort(got.begin(), got.end(), by_pos);
    std::sort(exp.begin(), exp.end(), by_pos);
    for (size_t i = 0; i < got.size(); ++i) {
      CAPTURE(i);
      CHECK(got[i].begin == exp[i].begin);
      CHECK(got[i].end == exp[i].end);
      CHECK(double(got[i].score) == doctest::Approx(std::exp(exp[i].logprob)).epsilon(1e-3));
      ++checked;
    }
    CHECK(double(t.spans[0].score) == doctest::Approx(std::exp(want[0].logprob)).epsilon(1e-3));
  }
  MESSAGE("alternative spans checked: " << checked);
  CHECK(checked > 20);
}

TEST_CASE("top-k: k larger than the candidates, k clamped to max_top_k, strides, arguments") {
  auto tm = pointer_model();
  auto ts = make_session(tm->model, topk_options(8, INFINITY));
  REQUIRE(ts->status == AMXQA_OK);
  amxqa_session* s = ts->s;
  // Two words: at most two allowed starts, so at most two spans for k = 8.
  const TopK few = topk(s, "who?", "Ada Lovelace", 8);
  REQUIRE(few.status == AMXQA_OK);
  CHECK(few.spans.size() >= 1);
  CHECK(few.spans.size() <= 2);
  check_list(few, "Ada Lovelace");

  // k above max_top_k: at most max_top_k spans; elements past n untouched.
  const std::string q = "who founded it?", p = "It was founded by Ada in 1969 near the river at Paris.";
  std::vector<amxqa_span> v(20, amxqa_span_init());
  for (amxqa_span& e : v) e.score = -7.f;
  size_t n = 0;
  REQUIRE(amxqa_answer_topk(s, q.data(), q.size(), p.data(), p.size(), v.data(), v.size(), &n,
                            nullptr) == AMXQA_OK);
  CHECK(n >= 1);
  CHECK(n <= 8);
  for (size_t i = n; i < v.size(); ++i) CHECK(v[i].score == -7.f);

  // A caller built against a bigger (future) span struct: its stride is used.
  struct Bigger {
    amxqa_span span;
    uint64_t future;
  };
  std::vector<Bigger> big(8);
  for (Bigger& b : big) {
    std::memset(&b, 0xab, sizeof b);
    b.span.struct_size = sizeof(Bigger);
  }
  size_t nb = 0;
  REQUIRE(amxqa_answer_topk(s, q.data(), q.size(), p.data(), p.size(), &big[0].span, big.size(),
                            &nb, nullptr) == AMXQA_OK);
  REQUIRE(nb == n);
  for (size_t i = 0; i < nb; ++i) {
    CHECK(big[i].span.struct_size == sizeof(Bigger));
    CHECK(big[i].span.begin == v[i].begin);
    CHECK(big[i].span.end == v[i].end);
    CHECK(big[i].span.score == v[i].score);
    CHECK(big[i].future == 0xababababababababull);
  }

  // Status codes.
  amxqa_span one = amxqa_span_init();
  size_t m = 99;
  CHECK(amxqa_answer_topk(s, q.data(), q.size(), p.data(), p.size(), &one, 0, &m, nullptr) ==
        AMXQA_ERR_INVALID_ARGUMENT);
  CHECK(m == 0);
  CHECK(amxqa_answer_topk(s, q.data(), q.size(), p.data(), p.size(), nullptr, 1, &m, nullptr) ==
        AMXQA_ERR_NULL_ARGUMENT);
  CHECK(amxqa_answer_topk(s, q.data(), q.size(), p.data(), p.size(), &one, 1, nullptr, nullptr) ==
        AMXQA_ERR_NULL_ARGUMENT);
  m = 99;
  CHECK(amxqa_answer_topk(nullptr, q.data(), q.size(), p.data(), p.size(), &one, 1, &m, nullptr) ==
        AMXQA_ERR_NULL_ARGUMENT);
  CHECK(m == 0);
  CHECK(amxqa_answer_topk(s, nullptr, 3, p.data(), p.size(), &one, 1, &m, nullptr) ==
        AMXQA_ERR_NULL_ARGUMENT);
  CHECK(amxqa_answer_topk(s, q.data(), q.size(), nullptr, 3, &one, 1, &m, nullptr) ==
        AMXQA_ERR_NULL_ARGUMENT);
  CHECK(amxqa_answer_topk(s, "", 0, p.data(), p.size(), &one, 1, &m, nullptr) ==
        AMXQA_ERR_EMPTY_QUESTION);
  one.struct_size = sizeof(amxqa_span) - 8;
  CHECK(amxqa_answer_topk(s, q.data(), q.size(), p.data(), p.size(), &one, 1, &m, nullptr) ==
        AMXQA_ERR_INVALID_ARGUMENT);
  one.struct_size = sizeof(amxqa_span) + 4;
  CHECK(amxqa_answer_topk(s, q.data(), q.size(), p.data(), p.size(), &one, 1, &m, nullptr) ==
        AMXQA_ERR_INVALID_ARGUMENT);
  one = amxqa_span_init();
  amxqa_answer_info bad = amxqa_answer_info_init();
  bad.struct_size = 8;
  CHECK(amxqa_answer_topk(s, q.data(), q.size(), p.data(), p.size(), &one, 1, &m, &bad) ==
        AMXQA_ERR_INVALID_ARGUMENT);
  // A 0.2-sized info (80 bytes) still works and is written only that far.
  struct Old {
    amxqa_answer_info info;
  } old;
  std::memset(&old, 0xcd, sizeof old);
  old.info.struct_size = offsetof(amxqa_answer_info, windows);
  CHECK(amxqa_answer_topk(s, q.data(), q.size(), p.data(), p.size(), &one, 1, &m, &old.info) ==
        AMXQA_OK);
  CHECK(old.info.windows == 0xcdcdcdcdu);
  CHECK(old.info.passage_tokens > 0);
  // Free mode has no spans.
  amxqa_session_options fo = topk_options(4);
  fo.extractive = 0;
  auto tf = make_session(tm->model, fo);
  REQUIRE(tf->status == AMXQA_OK);
  CHECK(amxqa_answer_topk(tf->s, q.data(), q.size(), p.data(), p.size(), &one, 1, &m, nullptr) ==
        AMXQA_ERR_INVALID_ARGUMENT);
  // An empty passage abstains: no spans.
  CHECK(amxqa_answer_topk(s, q.data(), q.size(), "", 0, &one, 1, &m, nullptr) == AMXQA_OK);
  CHECK(m == 0);
}

TEST_CASE("top-k options: sizes, defaults, old structs, limits") {
  auto ptr = pointer_model();
  auto ids = open_random("tiny");
  amxqa_session_options o = default_options();
  CHECK(o.max_top_k == 1);
  CHECK(o.windows == 0);
  CHECK(o.window_overlap == 0);
  const size_t p1 = amxqa_session_size(ptr->model, &o);
  o.max_top_k = 0;  // taken as 1
  CHECK(amxqa_session_size(ptr->model, &o) == p1);
  o.max_top_k = 16;
  const size_t p16 = amxqa_session_size(ptr->model, &o);
  CHECK(p16 > p1);
  o.max_top_k = 255;
  CHECK(amxqa_session_size(ptr->model, &o) == p16);  // the snapshot does not grow with k
  o.max_passage_tokens = 8192;
  CHECK(amxqa_session_size(ptr->model, &o) - p16 == 4096u * (16u + 4u * (ptr->model->d_model + 1)));
  o = default_options();
  const size_t i1 = amxqa_session_size(ids->model, &o);
  o.max_top_k = 16;
  CHECK(amxqa_session_size(ids->model, &o) == i1);  // no pointer: nothing to snapshot
  o = default_options();
  o.windows = 1;
  o.window_overlap = static_cast<uint16_t>(o.max_passage_tokens);
  CHECK(amxqa_session_size(ptr->model, &o) == 0);
  o.window_overlap = static_cast<uint16_t>(o.max_passage_tokens - 1);
  CHECK(amxqa_session_size(ptr->model, &o) == p1);  // windows need no memory

  // The struct never grows (amxqa_session_options_default cannot know the
  // caller's size): the new fields are 0.1's and 0.2's reserved bytes, so
  // even a 0.1-sized struct (28 bytes) carries them.
  CHECK(sizeof(amxqa_session_options) == 32);
  amxqa_session_options old = default_options();
  old.max_top_k = 16;
  old.struct_size = 28;
  CHECK(amxqa_session_size(ptr->model, &old) == p16);
}

TEST_CASE("windows: a passage over the cap fails without them and is answered with them") {
  auto tm = pointer_model();
  Rng r{5};
  std::string p;
  for (int i = 0; i < 6; ++i) p += random_text(r, 30) + ".\n";
  const std::string q = "who founded the river?";
  const size_t need = encode_text(tm->model, p).size();
  for (uint32_t cap : {24u, 40u}) {
    for (uint32_t overlap : {0u, 8u, cap / 2}) {
      CAPTURE(cap);
      CAPTURE(overlap);
      REQUIRE(need > 3 * cap);
      amxqa_session_options o = topk_options(4, INFINITY);
      o.max_passage_tokens = cap;
      auto off = make_session(tm->model, o);
      o.windows = 1;
      o.window_overlap = static_cast<uint16_t>(overlap);
      auto on = make_session(tm->model, o);
      REQUIRE(off->status == AMXQA_OK);
      REQUIRE(on->status == AMXQA_OK);

      const Asked no = ask(off->s, q, p);
      CHECK(no.status == AMXQA_ERR_PASSAGE_TOO_LONG);
      CHECK(std::string(amxqa_last_error(off->s)).find("windows") != std::string::npos);
      CHECK(topk(off->s, q, p, 4).status == AMXQA_ERR_PASSAGE_TOO_LONG);

      const Asked a = ask(on->s, q, p);
      REQUIRE(a.status == AMXQA_OK);
      CHECK(a.info.windows >= need / cap);
      CHECK(a.info.window < a.info.windows);
      CHECK(a.info.passage_tokens == need);
      REQUIRE_FALSE(a.info.abstained);  // threshold +inf: some window answers
      REQUIRE(a.info.span_end <= p.size());
      CHECK(a.text == p.substr(a.info.span_begin, a.info.span_end - a.info.span_begin));
      CHECK(a.info.probability >= 0.f);
      CHECK(a.info.probability <= 1.f);

      const TopK t = topk(on->s, q, p, 4);
      REQUIRE(t.status == AMXQA_OK);
      check_same_info(a.info, t.info);
      check_list(t, p);
      REQUIRE(!t.spans.empty());
      CHECK(t.spans.size() <= 4);
      CHECK(t.spans[0].begin == a.info.span_begin);
      CHECK(t.spans[0].end == a.info.span_end);
      CHECK(t.spans[0].score == a.info.probability);
      CHECK(t.spans[0].window == a.info.window);
      // Every span is passage bytes at word edges, trimmed.
      for (size_t i = 0; i < t.spans.size(); ++i) {
        const amxqa_span& v = t.spans[i];
        CHECK(v.window < a.info.windows);
        const std::string text = p.substr(v.begin, v.end - v.begin);
        if (text.empty()) {  // only the answer itself may be empty
          CHECK(i == 0);
          continue;
        }
        CHECK_FALSE(is_ascii_space(text.front()));
        CHECK_FALSE(is_ascii_space(text.back()));
        auto alnum = [&](size_t i) { return std::isalnum(static_cast<unsigned char>(p[i])) != 0; };
        CHECK_FALSE((v.begin > 0 && alnum(v.begin - 1) && alnum(v.begin)));
      }
      // The streaming entry point never windows.
      amxqa_answer_info si = amxqa_answer_info_init();
      auto cb = [](void*, const char*, size_t) { return 0; };
      CHECK(amxqa_answer_stream(on->s, q.data(), q.size(), p.data(), p.size(), cb, nullptr, &si) ==
            AMXQA_ERR_PASSAGE_TOO_LONG);
    }
  }
}

TEST_CASE("windows: a passage that fits is answered as without them; all windows abstaining abstains") {
  auto tm = pointer_model();
  amxqa_session_options o = topk_options(3);
  auto plain = make_session(tm->model, o);
  o.windows = 1;
  o.window_overlap = 16;
  auto on = make_session(tm->model, o);
  REQUIRE(plain->status == AMXQA_OK);
  REQUIRE(on->status == AMXQA_OK);
  for (const Pair& pr : pairs(12, 29)) {
    const Asked a = ask(plain->s, pr.q, pr.p);
    const Asked b = ask(on->s, pr.q, pr.p);
    REQUIRE(a.status == AMXQA_OK);
    check_same_info(a.info, b.info);
    CHECK(b.info.windows == 1);
    CHECK(a.text == b.text);
  }
  // A threshold low enough abstains in every window.
  amxqa_session_options lo = topk_options(3, -1e30f);
  lo.max_passage_tokens = 16;
  lo.windows = 1;
  lo.window_overlap = 4;
  auto ab = make_session(tm->model, lo);
  REQUIRE(ab->status == AMXQA_OK);
  Rng r{9};
  const std::string p = random_text(r, 80);
  const TopK t = topk(ab->s, "who?", p, 3);
  REQUIRE(t.status == AMXQA_OK);
  CHECK(t.info.abstained == 1);
  CHECK(t.info.windows > 1);
  CHECK(t.spans.empty());
}

TEST_CASE("top-k and windows allocate nothing, with and without the question re-read") {
  for (const bool reread : {false, true}) {
    if (reread && kSanitizedBuild) continue;  // test_session runs the re-read there
    CAPTURE(reread);
    auto tm = pointer_model(7, reread);
    amxqa_session_options o = topk_options(5, INFINITY);
    auto ts = make_session(tm->model, o);
    o.max_passage_tokens = 24;
    o.windows = 1;
    o.window_overlap = 6;
    auto tw = make_session(tm->model, o);
    REQUIRE(ts->status == AMXQA_OK);
    REQUIRE(tw->status == AMXQA_OK);
    const std::vector<Pair> prs = pairs(8, 31, 100);
    amxqa_span spans[5];
    for (amxqa_span& v : spans) v = amxqa_span_init();
    amxqa_answer_info info = amxqa_answer_info_init();
    char out[512];
    size_t n = 0;
    AllocScope scope;
    for (const Pair& pr : prs) {
      amxqa_answer_topk(ts->s, pr.q.data(), pr.q.size(), pr.p.data(), pr.p.size(), spans, 5, &n, &info);
      amxqa_answer_topk(tw->s, pr.q.data(), pr.q.size(), pr.p.data(), pr.p.size(), spans, 5, &n, &info);
      amxqa_answer(tw->s, pr.q.data(), pr.q.size(), pr.p.data(), pr.p.size(), out, sizeof out, &info);
    }
    amxqa_answer_topk(ts->s, "", 0, "x", 1, spans, 5, &n, &info);  // error paths too
    amxqa_answer_topk(ts->s, "q", 1, "x", 1, spans, 0, &n, &info);
    AMXQA_CHECK_NO_ALLOCATIONS(scope);
  }
}

}  // TEST_SUITE
