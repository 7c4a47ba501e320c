// session_fixture.h — shared by the runtime tests and test_train_runtime_agree.cpp: open a
// make_random_model() through write_model() + amxqa_model_open(), place
// sessions in aligned memory, generate random question/passage pairs, and an
// independent greedy-decoding oracle driven by full-sequence logits.
#pragma once
#include <cctype>
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "amxqa.h"
#include "format/model_writer.h"
#include "format/random_model.h"
#include "format/splitmix64.h"
#include "model/model.h"
#include "session/forward.h"
#include "session/session.h"
#include "support/forward_logits.h"

namespace amxqa::test {

// Sanitizer builds run the tests for memory and UB errors; a case that only
// adds coverage the Release pass already gives is left out there.
#ifdef AMXQA_TEST_SANITIZED
constexpr bool kSanitizedBuild = true;
#else
constexpr bool kSanitizedBuild = false;
#endif

// 64-byte aligned heap bytes (test side only).
struct Aligned {
  void* p = nullptr;
  size_t n = 0;
  explicit Aligned(size_t bytes) : n(bytes) {
    p = std::aligned_alloc(64, (bytes + 63) / 64 * 64 + 64);
    REQUIRE(p != nullptr);
  }
  ~Aligned() { std::free(p); }
  Aligned(const Aligned&) = delete;
  Aligned& operator=(const Aligned&) = delete;
  uint8_t* bytes() { return static_cast<uint8_t*>(p); }
};

struct TestModel {
  std::unique_ptr<Aligned> file, storage;
  amxqa_model* model = nullptr;
};

inline std::unique_ptr<TestModel> open_spec(const ModelSpec& spec) {
  auto tm = std::make_unique<TestModel>();
  const std::vector<uint8_t> bytes = write_model(spec);
  tm->file = std::make_unique<Aligned>(bytes.size());
  std::memcpy(tm->file->p, bytes.data(), bytes.size());
  tm->storage = std::make_unique<Aligned>(AMXQA_MODEL_STORAGE_BYTES);
  const amxqa_status st =
      amxqa_model_open(tm->file->p, bytes.size(), tm->storage->p, &tm->model);
  INFO(amxqa_last_error(nullptr));
  REQUIRE(st == AMXQA_OK);
  return tm;
}

inline std::unique_ptr<TestModel> open_random(const char* shape, DType dt = DType::f32,
                                              uint64_t seed = 7) {
  return open_spec(make_random_model(shape, seed, dt));
}

struct TestSession {
  std::unique_ptr<Aligned> mem;
  amxqa_session* s = nullptr;
  amxqa_status status = AMXQA_ERR_INTERNAL;
  ~TestSession() { amxqa_session_finish(s); }
};

inline amxqa_session_options default_options(amxqa_isa isa = AMXQA_ISA_SCALAR) {
  amxqa_session_options o;
  amxqa_session_options_default(&o);
  o.isa = isa;
  return o;
}

// Places a session; status says whether it worked (an ISA may be missing).
inline std::unique_ptr<TestSession> make_session(const amxqa_model* m,
                                                 const amxqa_session_options& o) {
  auto ts = std::make_unique<TestSession>();
  const size_t need = amxqa_session_size(m, &o);
  REQUIRE(need > 0);
  ts->mem = std::make_unique<Aligned>(need);
  ts->status = amxqa_session_init(m, &o, ts->mem->p, need, &ts->s);
  return ts;
}

// Deterministic generator for text.
struct Rng {
  uint64_t s;
  uint64_t next() { return splitmix64(s); }
  size_t below(size_t n) { return static_cast<size_t>(next() % n); }
};

inline std::string random_text(Rng& r, size_t words) {
  static const char* const kWords[] = {
      "the", "and", "in", "of", "it", "is", "river", "Paris", "1969", "42", "was", "founded",
      "by", "she", "wrote", "on", "north", "café", "日本", "at", "there", "when", "who",
      "where", "3.14", "(see", "note)", "won", "an", "award", "ent", "ion", "thin", "e.g.",
      "x", "--", "\"quoted\"", "ATHENS", "tree", "sea"};
  static const char* const kSeps[] = {" ", " ", " ", " ", " ", ", ", ". ", "  ", "\n", " \t"};
  std::string t;
  for (size_t i = 0; i < words; ++i) {
    if (i) t += kSeps[r.below(sizeof kSeps / sizeof *kSeps)];
    t += kWords[r.below(sizeof kWords / sizeof *kWords)];
  }
  return t;
}

struct Asked {
  amxqa_status status = AMXQA_ERR_INTERNAL;
  std::string text;  // up to the NUL the API wrote
  amxqa_answer_info info = amxqa_answer_info_init();
  std::vector<uint32_t> ids;  // emitted answer ids (from the session)
};

inline Asked ask(amxqa_session* s, const std::string& q, const std::string& p,
                 size_t outcap = 4096) {
  Asked a;
  std::vector<char> out(outcap + 1, '\0');
  a.status = amxqa_answer(s, q.data(), q.size(), p.data(), p.size(), out.data(), outcap, &a.info);
  if (outcap) a.text.assign(out.data(), strnlen(out.data(), outcap));
  // The answer's bytes may hold NULs: take the span when it fits.
  if (a.status == AMXQA_OK && s->opt.extractive && !a.info.abstained)
    a.text = p.substr(a.info.span_begin, a.info.span_end - a.info.span_begin);
  a.ids.assign(s->ans_ids, s->ans_ids + a.info.answer_tokens);
  return a;
}

// Asks sessions[from …] q about p and checks each answer is `want` (another
// backend's answer to the same) bit for bit: margin, decision, text.
inline void check_same_answers(const Asked& want, const std::vector<std::unique_ptr<TestSession>>& sessions,
                               size_t from, const std::string& q, const std::string& p) {
  for (size_t b = from; b < sessions.size(); ++b) {
    const Asked o = ask(sessions[b]->s, q, p);
    CAPTURE(amxqa_isa_name(sessions[b]->s->isa));
    CHECK(o.info.no_answer_margin == want.info.no_answer_margin);  // bit for bit
    CHECK(o.info.abstained == want.info.abstained);
    CHECK(o.text == want.text);
  }
}

inline std::vector<uint32_t> encode_text(const amxqa_model* m, const std::string& t) {
  std::vector<uint32_t> ids(t.size() + 1);
  const size_t n = amxqa_tokenize(m, t.data(), t.size(), ids.data(), ids.size());
  ids.resize(n);
  return ids;
}

// BOS enc(q) enc("\n\n") enc(p) ANS, or BOS enc(q) enc("\n\n") enc(p)
// enc("\n\n") enc(q) ANS for a model with the question re-read (MODEL.md
// "Prompt format"), built here from the document, not from answer.cpp.
inline std::vector<uint32_t> prompt_ids(const amxqa_model* m, const std::string& q,
                                        const std::string& p) {
  std::vector<uint32_t> ids{m->bos};
  std::vector<std::string> parts{q, "\n\n", p};
  if (m->question_reread) parts.insert(parts.end(), {"\n\n", q});
  for (const std::string& part : parts) {
    const auto e = encode_text(m, part);
    ids.insert(ids.end(), e.begin(), e.end());
  }
  ids.push_back(m->ans);
  return ids;
}

// Full logits of every position of `ids` through the test hook.
inline std::vector<float> all_logits(amxqa_session* s, const std::vector<uint32_t>& ids,
                                     bool one_at_a_time = false) {
  std::vector<float> z(ids.size() * s->dim.V);
  REQUIRE(test::forward_logits(s, ids.data(), ids.size(), one_at_a_time, z.data()) ==
          AMXQA_OK);
  return z;
}

// Written independently of runtime/session/decode.cpp from MODEL.md "Decoding".
struct Oracle {
  std::vector<uint32_t> tokens;  // answer tokens
  bool abstained = false, eot = false;
  size_t span_first = 0, span_last = 0;  // token indices of the earliest span
};

inline bool oracle_generatable(const amxqa_model* m, uint32_t id, bool use_mask) {
  if (id == m->pad || id == m->bos || id == m->ans || id == m->eot || id == m->abstain)
    return false;
  return !use_mask || ((m->vocab_mask[id >> 3] >> (id & 7)) & 1u);
}

// Greedy extractive decoding; each step re-runs the whole sequence through
// the full-sequence forward (quadratic, fine for the tiny model).
// MODEL.md "Whole words", written independently of runtime/session/decode.cpp:
// the passage is decoded into code points once, and a byte offset is an
// allowed span edge unless word characters lie on both sides of it.
struct OracleWords {
  std::vector<int8_t> word_before, word_after;  // per byte offset 0..n: -1 unknown
  explicit OracleWords(const std::string& p) : word_before(p.size() + 1, 0), word_after(p.size() + 1, 0) {
    auto is_word = [](uint32_t cp) {
      if (cp < 0x80) return bool(std::isalnum(static_cast<int>(cp)));
      return !(cp <= 0xBF || (cp >= 0x2000 && cp <= 0x206F) || (cp >= 0x3000 && cp <= 0x303F));
    };
    size_t i = 0;
    while (i < p.size()) {
      const auto b = static_cast<uint8_t>(p[i]);
      size_t len = b >= 0xF0 ? 4 : b >= 0xE0 ? 3 : b >= 0xC0 ? 2 : 1;
      uint32_t cp = b;
      if (len > 1 && i + len <= p.size()) {
        uint32_t v = b & (0x3Fu >> (len - 1));
        bool ok = true;
        for (size_t k = 1; k < len; ++k) {
          const auto c = static_cast<uint8_t>(p[i + k]);
          ok = ok && (c & 0xC0) == 0x80;
          v = (v << 6) | (c & 0x3F);
        }
        if (ok) cp = v;
        else len = 1;
      } else {
        len = 1;
      }
      word_after[i] = is_word(cp);
      word_before[i + len] = is_word(cp);
      i += len;
    }
  }
  bool edge_ok(size_t at) const { return !(word_before[at] && word_after[at]); }
};

inline Oracle oracle_extractive(amxqa_session* s, const std::string& q, const std::string& p) {
  const amxqa_model* m = s->model;
  const bool mask = s->opt.use_vocab_mask;
  const auto pass = encode_text(m, p);
  std::vector<uint32_t> ids(p.size() + 1), offs(p.size() + 1);
  encode(m->tok, p.data(), p.size(), ids.data(), offs.data(), ids.size());
  const OracleWords words(p);
  auto may_start = [&](size_t i) { return !s->opt.whole_words || words.edge_ok(offs[i]); };
  auto may_end = [&](size_t i) {
    return !s->opt.whole_words || words.edge_ok(i + 1 < pass.size() ? offs[i + 1] : p.size());
  };
  std::vector<uint32_t> seq = prompt_ids(m, q, p);
  std::vector<size_t> cand;
  Oracle o;
  for (uint32_t step = 1;; ++step) {
    std::vector<uint32_t> allowed;
    auto add = [&](uint32_t id) {
      for (uint32_t a : allowed)
        if (a == id) return;
      allowed.push_back(id);
    };
    bool terminal_ok = true;
    if (step == 1) {
      for (size_t i = 0; i < pass.size(); ++i)
        if (oracle_generatable(m, pass[i], mask) && may_start(i)) add(pass[i]);
    } else {
      if (o.tokens.size() == s->opt.max_answer_tokens) break;
      terminal_ok = false;
      for (size_t i : cand) {
        if (i + 1 < pass.size() && oracle_generatable(m, pass[i + 1], mask)) add(pass[i + 1]);
        terminal_ok = terminal_ok || may_end(i);
      }
      if (allowed.empty()) break;
    }
    const uint32_t terminal = step == 1 ? m->abstain : m->eot;
    if (terminal_ok) allowed.push_back(terminal);
    const auto z = all_logits(s, seq);
    const float* last = z.data() + (seq.size() - 1) * s->dim.V;
    uint32_t best = allowed[0];
    for (uint32_t id : allowed)
      if (last[id] > last[best] || (last[id] == last[best] && id < best)) best = id;
    if (terminal_ok && best == terminal) {
      (step == 1 ? o.abstained : o.eot) = true;
      break;
    }
    std::vector<size_t> next;
    if (step == 1) {
      for (size_t i = 0; i < pass.size(); ++i)
        if (pass[i] == best && may_start(i)) next.push_back(i);
    } else {
      for (size_t i : cand)
        if (i + 1 < pass.size() && pass[i + 1] == best) next.push_back(i + 1);
    }
    cand = next;
    o.tokens.push_back(best);
    seq.push_back(best);
  }
  if (!o.tokens.empty()) {
    o.span_last = cand.front();
    o.span_first = o.span_last + 1 - o.tokens.size();
  }
  return o;
}

inline bool is_ascii_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

}  // namespace amxqa::test
