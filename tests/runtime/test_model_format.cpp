// test_model_format.cpp — the .amxqa file both ways: write_model() then
// amxqa_model_open(), checking the architecture summary, every tensor's
// values through the runtime's views (f32 exact, bf16 round-to-nearest-even,
// i8 within half a scale step), the tokenizer view, and the API basics
// (alignment and NULL handling, status names, versions).
#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "amxqa.h"
#include "format/model_writer.h"
#include "format/random_model.h"
#include "model/model.h"

namespace {

using namespace amxqa;

// A 64-byte aligned copy of a file image (what mmap gives the runtime).
struct AlignedBytes {
  explicit AlignedBytes(const std::vector<uint8_t>& bytes, size_t shift = 0)
      : size(bytes.size()),
        mem(static_cast<uint8_t*>(std::aligned_alloc(64, ((bytes.size() + shift) / 64 + 1) * 64)),
            &std::free) {
    data = mem.get() + shift;
    std::memcpy(data, bytes.data(), bytes.size());
  }
  size_t size;
  std::unique_ptr<uint8_t, decltype(&std::free)> mem;
  uint8_t* data;
};

struct OpenModel {
  explicit OpenModel(const std::vector<uint8_t>& bytes) : file(bytes) {
    status = amxqa_model_open(file.data, file.size, storage, &model);
  }
  AlignedBytes file;
  alignas(64) unsigned char storage[AMXQA_MODEL_STORAGE_BYTES];
  amxqa_model* model = nullptr;
  amxqa_status status;
};

// Logical element (r, c) of one [rows][cols] view, dequantised.
float element(const WeightView& w, uint32_t r, uint32_t c) {
  size_t i = size_t(r) * w.cols + c;
  if (w.layout == Layout::vnni2) i = (size_t(c / 2) * w.rows + r) * 2 + c % 2;
  if (w.layout == Layout::vnni4) i = (size_t(c / 4) * w.rows + r) * 4 + c % 4;
  switch (w.dtype) {
    case DType::f32: return static_cast<const float*>(w.data)[i];
    case DType::bf16: return bf16_to_f32(static_cast<const uint16_t*>(w.data)[i]);
    case DType::i8: return w.scales[r] * float(static_cast<const int8_t*>(w.data)[i]);
  }
  return NAN;
}

// The runtime's view of a tensor named as in MODEL.md; f32 vectors come back as [1][n].
WeightView view_named(const amxqa_model& m, const std::string& name) {
  auto vec = [](const float* p, uint32_t n, uint32_t rows = 1) {
    WeightView v;
    v.rows = rows, v.cols = n, v.data = p;
    return v;
  };
  if (name == "tok_emb") return m.tok_emb;
  if (name == "final_norm") return vec(m.final_norm, m.d_model);
  const size_t dot = name.find('.');
  const LayerWeights& L = m.layers[std::stoul(name.substr(1, dot - 1))];
  const std::string f = name.substr(dot + 1);
  if (f == "attn_norm") return vec(L.attn_norm, m.d_model);
  if (f == "ffn_norm") return vec(L.ffn_norm, m.d_model);
  if (f == "wa") return vec(L.wa, m.d_model, m.n_heads);
  if (f == "ba") return vec(L.ba, m.n_heads);
  if (f == "router") return vec(L.router, m.d_model, m.moe_experts);
  if (f == "wq") return L.wq;
  if (f == "wk") return L.wk;
  if (f == "wv") return L.wv;
  if (f == "wo") return L.wo;
  if (f == "w1") return L.w1;
  if (f == "w2") return L.w2;
  if (f == "moe_w1") return L.moe_w1;
  if (f == "moe_w2") return L.moe_w2;
  FAIL("unknown tensor " << name);
  return {};
}

// Checks every value of every tensor against the spec's f32 values.
void check_round_trip(const ModelSpec& spec, const amxqa_model& m) {
  for (const TensorSpec& t : spec.tensors) {
    CAPTURE(t.name);
    const WeightView v = view_named(m, t.name);
    REQUIRE(v.data != nullptr);
    CHECK(reinterpret_cast<uintptr_t>(v.data) % 64 == 0);
    CHECK(v.dtype == t.dtype);
    CHECK(v.layout == t.layout);
    const bool stacked = t.shape.size() == 3;
    const uint32_t experts = stacked ? t.shape[0] : 1;
    const uint32_t rows = t.shape.size() == 1 ? 1 : t.shape[t.shape.size() - 2];
    const uint32_t cols = t.shape.back();
    REQUIRE(v.cols == cols);
    REQUIRE(v.rows == experts * rows);  // stacked experts: rows = E * rows_per_expert
    size_t bad = 0;
    for (uint32_t e = 0; e < experts; ++e) {
      const WeightView ev = stacked ? expert_view(v, e, rows) : v;
      for (uint32_t r = 0; r < rows; ++r) {
        const float* want = t.values.data() + (size_t(e) * rows + r) * cols;
        float absmax = 0.f;
        for (uint32_t c = 0; c < cols; ++c) absmax = std::max(absmax, std::fabs(want[c]));
        for (uint32_t c = 0; c < cols; ++c) {
          const float got = element(ev, r, c);
          bool ok = false;
          if (t.dtype == DType::f32) ok = got == want[c];
          if (t.dtype == DType::bf16) ok = got == bf16_to_f32(f32_to_bf16(want[c])) &&
                                           std::fabs(got - want[c]) <= std::fabs(want[c]) / 256.f;
          if (t.dtype == DType::i8)
            ok = std::fabs(got - want[c]) <= absmax / 127.f * 0.5f + 1e-6f;
          bad += ok ? 0 : 1;
        }
      }
    }
    CHECK(bad == 0);
  }
}

uint64_t count_params(const ModelSpec& spec) {
  uint64_t n = 0;
  for (const TensorSpec& t : spec.tensors) n += t.values.size();
  return n;
}

}  // namespace

TEST_SUITE("unit") {
  TEST_CASE("tiny model: open, info, provenance and scores") {
    ModelSpec spec = make_random_model("tiny", 7);
    spec.provenance.trainer_version = "9.8.7";
    spec.provenance.recipe = "unit-test";
    spec.provenance.tokens_seen = 123456789;
    spec.provenance.scores = {{"squad_dev_em", 0.25f}, {"squad_dev_f1", 0.5f}};
    OpenModel om(write_model(spec));
    REQUIRE(om.status == AMXQA_OK);
    REQUIRE(om.model != nullptr);
    CHECK(static_cast<void*>(om.model) == static_cast<void*>(om.storage));

    amxqa_model_info info = amxqa_model_info_init();
    REQUIRE(amxqa_model_get_info(om.model, &info) == AMXQA_OK);
    CHECK(info.format_version == 1);
    CHECK(info.d_model == 64);
    CHECK(info.n_layers == 2);
    CHECK(info.n_heads == spec.arch.n_heads);
    CHECK(info.n_kv_heads == spec.arch.n_kv_heads);
    CHECK(info.head_dim == spec.arch.head_dim);
    CHECK(info.window == spec.arch.window);
    CHECK(info.lin_state == spec.arch.lin_state);
    CHECK(info.d_ff == spec.arch.d_ff);
    CHECK(info.moe_experts == spec.arch.moe_experts);
    CHECK(info.moe_top_k == spec.arch.moe_top_k);
    CHECK(info.moe_d_ff == spec.arch.moe_d_ff);
    CHECK(info.moe_route_block == spec.arch.moe_route_block);
    CHECK(info.moe_route_window == spec.arch.moe_route_window);
    CHECK(info.moe_layer_count == 1);
    CHECK(info.vocab_size == 300);
    CHECK(info.vocab_masked == 3);  // PAD, BOS, ANS
    CHECK(std::string(info.layer_kinds) == "lin swa");
    CHECK(std::string(info.weight_dtype) == "f32");
    CHECK(std::string(info.trainer_version) == "9.8.7");
    CHECK(std::string(info.recipe) == "unit-test");
    CHECK(info.tokens_seen == 123456789);
    const uint64_t params = count_params(spec);
    CHECK(info.param_count == params);
    const uint64_t expert = uint64_t(spec.arch.moe_d_ff) * spec.arch.d_model * 2;
    CHECK(info.active_param_count ==
          params - expert * (spec.arch.moe_experts - spec.arch.moe_top_k));
    CHECK(info.weight_bytes >= params * 4);
    CHECK(info.weight_bytes % 64 == 0);

    const char* names[4] = {};
    float values[4] = {};
    CHECK(amxqa_model_scores(om.model, names, values, 4) == 2);
    CHECK(std::string(names[0]) == "squad_dev_em");
    CHECK(values[0] == 0.25f);
    CHECK(std::string(names[1]) == "squad_dev_f1");
    CHECK(values[1] == 0.5f);
    CHECK(amxqa_model_scores(om.model, nullptr, nullptr, 0) == 2);

    // The view itself: specials, mask, layers.
    const amxqa_model& m = *om.model;
    CHECK(m.pad == 0);
    CHECK(m.bos == 1);
    CHECK(m.eot == 2);
    CHECK(m.ans == 3);
    CHECK(m.abstain == 4);
    CHECK_FALSE(vocab_allowed(m, 0));
    CHECK_FALSE(vocab_allowed(m, 1));
    CHECK(vocab_allowed(m, 2));
    CHECK_FALSE(vocab_allowed(m, 3));
    CHECK(vocab_allowed(m, 4));
    CHECK(vocab_allowed(m, 299));
    CHECK(m.layers[0].kind == kLayerLin);
    CHECK(m.layers[0].moe);
    CHECK(m.layers[1].kind == kLayerSwa);
    CHECK_FALSE(m.layers[1].moe);
    CHECK(m.layers[0].wa != nullptr);
    CHECK(m.layers[1].wa == nullptr);
    CHECK(m.layers[0].router != nullptr);
    CHECK(m.layers[1].router == nullptr);
    CHECK(m.rope_theta == spec.arch.rope_theta);
    CHECK(m.norm_eps == spec.arch.norm_eps);

    CHECK(amxqa_model_verify(om.file.data, om.file.size, nullptr, nullptr) == AMXQA_OK);
  }

  TEST_CASE("tensors round-trip in every dtype and layout") {
    for (DType dt : {DType::f32, DType::bf16, DType::i8}) {
      CAPTURE(int(dt));
      const ModelSpec spec = make_random_model("tiny", 3, dt);
      OpenModel om(write_model(spec));
      REQUIRE(om.status == AMXQA_OK);
      check_round_trip(spec, *om.model);
      amxqa_model_info info = amxqa_model_info_init();
      REQUIRE(amxqa_model_get_info(om.model, &info) == AMXQA_OK);
      CHECK(std::string(info.weight_dtype) ==
            (dt == DType::f32 ? "f32" : dt == DType::bf16 ? "bf16" : "int8"));
      if (dt == DType::bf16) CHECK(om.model->layers[0].wq.layout == Layout::vnni2);
      if (dt == DType::i8) CHECK(om.model->layers[1].w1.layout == Layout::vnni4);
    }
  }

  TEST_CASE("7-bit i8 weights: written in [-63, 63] with absmax / 63 scales, flagged in the view and the info") {
    ModelSpec spec = make_random_model("tiny", 3, DType::i8);
    for (TensorSpec& t : spec.tensors)
      if (t.dtype == DType::i8) t.weight_bits = 7;
    OpenModel om(write_model(spec));
    REQUIRE(om.status == AMXQA_OK);
    amxqa_model_info info = amxqa_model_info_init();
    REQUIRE(amxqa_model_get_info(om.model, &info) == AMXQA_OK);
    CHECK(info.weight_bits == 7);
    CHECK(std::string(info.weight_dtype) == "int8");
    const WeightView& v = om.model->layers[1].w1;
    CHECK(v.bits == 7);
    const int8_t* q = static_cast<const int8_t*>(v.data);
    int lo = 0, hi = 0;
    for (size_t i = 0; i < size_t(v.rows) * v.cols; ++i) lo = std::min<int>(lo, q[i]), hi = std::max<int>(hi, q[i]);
    CHECK(lo == -63);  // each row's absmax lands on +-63
    CHECK(hi == 63);
    // The same spec at 8 bits: today's format, weight_bits absent, read as 8.
    for (TensorSpec& t : spec.tensors) t.weight_bits = 8;
    OpenModel om8(write_model(spec));
    REQUIRE(om8.status == AMXQA_OK);
    REQUIRE(amxqa_model_get_info(om8.model, &info) == AMXQA_OK);
    CHECK(info.weight_bits == 8);
    CHECK(om8.model->layers[1].w1.bits == 8);
    for (TensorSpec& t : spec.tensors)
      if (t.dtype == DType::f32) {
        t.weight_bits = 7;  // only i8 can be 7-bit
        CHECK_THROWS_AS(write_model(spec), std::runtime_error);
        break;
      }
  }

  TEST_CASE("bf16 rounds to nearest even and i8 scales are per row") {
    ModelSpec spec = make_random_model("tiny", 5, DType::bf16);
    // Hand-picked values: exact halfway cases round to the even neighbour.
    TensorSpec* wq = nullptr;
    for (TensorSpec& t : spec.tensors)
      if (t.name == "l1.wq") wq = &t;
    REQUIRE(wq != nullptr);
    const float halfway_down = 1.0f + 1.0f / 256.f;  // 1 + 2^-8: ties to 1.0 (even)
    const float halfway_up = 1.0f + 3.0f / 256.f;    // ties to 1 + 2^-6 (even)
    wq->values[0] = halfway_down;
    wq->values[1] = halfway_up;
    wq->values[2] = -0.0f;
    OpenModel om(write_model(spec));
    REQUIRE(om.status == AMXQA_OK);
    const WeightView& v = om.model->layers[1].wq;
    CHECK(element(v, 0, 0) == 1.0f);
    CHECK(element(v, 0, 1) == 1.0f + 4.0f / 256.f);
    CHECK(element(v, 0, 2) == 0.0f);

    ModelSpec qspec = make_random_model("tiny", 5, DType::i8);
    OpenModel qm(write_model(qspec));
    REQUIRE(qm.status == AMXQA_OK);
    const WeightView& q = qm.model->layers[0].moe_w2;  // stacked: one scale per (expert, row)
    REQUIRE(q.scales != nullptr);
    CHECK(reinterpret_cast<uintptr_t>(q.scales) % 64 == 0);
    const WeightView e3 = expert_view(q, 3, qspec.arch.d_model);
    CHECK(e3.scales == q.scales + 3 * qspec.arch.d_model);
    CHECK(e3.rows == qspec.arch.d_model);
    CHECK(e3.cols == qspec.arch.moe_d_ff);
  }

  TEST_CASE("tokenizer view: merges apply and token bytes round-trip") {
    OpenModel om(write_model(make_random_model("tiny", 1)));
    REQUIRE(om.status == AMXQA_OK);
    const char* text = "the cat and the dog, in the end\n\x01\xff";
    const size_t len = std::strlen(text);
    uint32_t ids[64];
    const size_t n = amxqa_tokenize(om.model, text, len, ids, 64);
    REQUIRE(n > 0);
    REQUIRE(n <= 64);
    CHECK(n < len);  // merges fired
    std::string back;
    bool saw_merge = false;
    for (size_t i = 0; i < n; ++i) {
      size_t bl = 0;
      const char* b = amxqa_token_bytes(om.model, ids[i], &bl);
      REQUIRE(b != nullptr);
      back.append(b, bl);
      saw_merge |= ids[i] >= kMergeBase;
    }
    CHECK(back == text);
    CHECK(saw_merge);
    CHECK(amxqa_tokenize(om.model, text, len, nullptr, 0) == n);
    size_t bl = 99;
    CHECK(amxqa_token_bytes(om.model, 300, &bl) == nullptr);
    CHECK(bl == 0);
    const char* the = amxqa_token_bytes(om.model, kMergeBase + 22, &bl);  // 23rd fixed merge
    CHECK(std::string(the, bl) == "the");
    CHECK(amxqa_tokenize(nullptr, text, len, ids, 64) == 0);
  }

  TEST_CASE("open refuses NULL and misaligned buffers") {
    const std::vector<uint8_t> bytes = write_model(make_random_model("tiny", 1));
    AlignedBytes aligned(bytes);
    AlignedBytes shifted(bytes, 8);
    alignas(64) static unsigned char storage[AMXQA_MODEL_STORAGE_BYTES + 64];
    amxqa_model* m = reinterpret_cast<amxqa_model*>(&storage[0]);
    CHECK(amxqa_model_open(shifted.data, shifted.size, storage, &m) == AMXQA_ERR_MISALIGNED);
    CHECK(m == nullptr);
    CHECK(std::string(amxqa_last_error(nullptr)).find("aligned") != std::string::npos);
    CHECK(amxqa_model_open(aligned.data, aligned.size, storage + 8, &m) == AMXQA_ERR_MISALIGNED);
    CHECK(amxqa_model_open(aligned.data, aligned.size, nullptr, &m) == AMXQA_ERR_NULL_ARGUMENT);
    CHECK(std::string(amxqa_last_error(nullptr)).find("storage") != std::string::npos);
    CHECK(amxqa_model_open(nullptr, aligned.size, storage, &m) == AMXQA_ERR_NULL_ARGUMENT);
    CHECK(amxqa_model_open(aligned.data, aligned.size, storage, nullptr) == AMXQA_ERR_NULL_ARGUMENT);
    CHECK(amxqa_model_verify(shifted.data, shifted.size, nullptr, nullptr) == AMXQA_ERR_MISALIGNED);
    CHECK(amxqa_model_verify(nullptr, 0, nullptr, nullptr) == AMXQA_ERR_NULL_ARGUMENT);
    amxqa_model_info info = amxqa_model_info_init();
    CHECK(amxqa_model_get_info(nullptr, &info) == AMXQA_ERR_NULL_ARGUMENT);
    CHECK(amxqa_model_scores(nullptr, nullptr, nullptr, 0) == 0);
    REQUIRE(amxqa_model_open(aligned.data, aligned.size, storage, &m) == AMXQA_OK);
    CHECK(amxqa_model_get_info(m, nullptr) == AMXQA_ERR_NULL_ARGUMENT);
  }

  TEST_CASE("every status has a unique, stable name") {
    const amxqa_status all[] = {
        AMXQA_OK, AMXQA_ERR_NULL_ARGUMENT, AMXQA_ERR_INVALID_ARGUMENT,
        AMXQA_ERR_WORKSPACE_TOO_SMALL, AMXQA_ERR_MISALIGNED, AMXQA_ERR_EMPTY_QUESTION,
        AMXQA_ERR_PASSAGE_TOO_LONG, AMXQA_ERR_QUESTION_TOO_LONG, AMXQA_ERR_OUTPUT_TOO_SMALL,
        AMXQA_ERR_UNSUPPORTED_ISA, AMXQA_ERR_CANCELLED, AMXQA_ERR_MODEL_TRUNCATED,
        AMXQA_ERR_MODEL_IDENTIFIER, AMXQA_ERR_MODEL_VERSION, AMXQA_ERR_MODEL_CORRUPT,
        AMXQA_ERR_MODEL_ARCH, AMXQA_ERR_MODEL_TENSOR, AMXQA_ERR_MODEL_ALIGNMENT,
        AMXQA_ERR_MODEL_TOKENIZER, AMXQA_ERR_MODEL_VOCAB_MASK, AMXQA_ERR_MODEL_SPECIALS,
        AMXQA_ERR_MODEL_MOE, AMXQA_ERR_MODEL_LAYOUT, AMXQA_ERR_MODEL_OVERFLOW, AMXQA_ERR_INTERNAL};
    std::set<std::string> names;
    for (amxqa_status s : all) {
      const std::string name = amxqa_status_name(s);
      CAPTURE(name);
      CHECK(name.rfind("AMXQA_", 0) == 0);
      CHECK(name != "AMXQA_ERR_UNKNOWN");
      names.insert(name);
    }
    CHECK(names.size() == sizeof all / sizeof all[0]);
    CHECK(std::string(amxqa_status_name(AMXQA_OK)) == "AMXQA_OK");
    CHECK(std::string(amxqa_status_name(AMXQA_ERR_MODEL_VERSION)) == "AMXQA_ERR_MODEL_VERSION");
    CHECK(std::string(amxqa_status_name(static_cast<amxqa_status>(77))) == "AMXQA_ERR_UNKNOWN");
    CHECK(std::string(amxqa_status_name(static_cast<amxqa_status>(50))) == "AMXQA_ERR_UNKNOWN");
  }

  TEST_CASE("versions and ISA names") {
    CHECK(amxqa_version_number() == AMXQA_VERSION_NUMBER);
    CHECK(std::string(amxqa_version()) == std::to_string(AMXQA_VERSION_MAJOR) + "." +
                                               std::to_string(AMXQA_VERSION_MINOR) + "." +
                                               std::to_string(AMXQA_VERSION_PATCH));
    CHECK(std::string(amxqa_isa_name(AMXQA_ISA_AUTO)) == "auto");
    CHECK(std::string(amxqa_isa_name(AMXQA_ISA_SCALAR)) == "scalar");
    CHECK(std::string(amxqa_isa_name(AMXQA_ISA_AVX2)) == "avx2");
    CHECK(std::string(amxqa_isa_name(AMXQA_ISA_AVX512)) == "avx512");
    CHECK(std::string(amxqa_isa_name(AMXQA_ISA_AMX)) == "amx");
    CHECK(std::string(amxqa_isa_name(AMXQA_ISA_AMX_EMULATED)) == "amx-emulated");
    CHECK(std::string(amxqa_isa_name(AMXQA_ISA_NEON)) == "neon");
    CHECK(std::string(amxqa_isa_name(AMXQA_ISA_NEON_DOTPROD)) == "neon-dotprod");
    CHECK(std::string(amxqa_isa_name(static_cast<amxqa_isa>(8))) == "unknown");
  }

  TEST_CASE("write_model refuses specs it cannot represent") {
    ModelSpec spec = make_random_model("tiny", 1);
    spec.tensors[2].values.pop_back();
    CHECK_THROWS_AS(write_model(spec), std::runtime_error);
    spec = make_random_model("tiny", 1);
    spec.tensors[0].layout = Layout::vnni2;  // f32 cannot be vnni2-packed
    CHECK_THROWS_AS(write_model(spec), std::runtime_error);
    spec = make_random_model("tiny", 1);
    spec.vocab_mask.pop_back();
    CHECK_THROWS_AS(write_model(spec), std::runtime_error);
    CHECK_THROWS_AS(make_random_model("huge", 1), std::runtime_error);
  }

  TEST_CASE("the tiny preset is deterministic in its seed") {
    const auto a = write_model(make_random_model("tiny", 11));
    const auto b = write_model(make_random_model("tiny", 11));
    const auto c = write_model(make_random_model("tiny", 12));
    CHECK(a == b);
    CHECK(a != c);
    CHECK(a.size() == c.size());
  }
}

TEST_SUITE("slow") {
  TEST_CASE("reference preset opens (the paper's shape, int8)") {
    const ModelSpec spec = make_random_model("reference", 1, DType::i8);
    OpenModel om(write_model(spec));
    REQUIRE(om.status == AMXQA_OK);
    // Opening is the full validation; report what it costs on the paper's shape.
    alignas(64) static unsigned char storage[AMXQA_MODEL_STORAGE_BYTES];
    amxqa_model* again = nullptr;
    const auto t0 = std::chrono::steady_clock::now();
    REQUIRE(amxqa_model_open(om.file.data, om.file.size, storage, &again) == AMXQA_OK);
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    MESSAGE("reference (int8, " << om.file.size << " bytes): open + validation " << ms << " ms");
    amxqa_model_info info = amxqa_model_info_init();
    REQUIRE(amxqa_model_get_info(om.model, &info) == AMXQA_OK);
    CHECK(std::string(info.layer_kinds) == "lin swa swa lin swa lin");
    CHECK(info.vocab_size == 16384);
    CHECK(info.moe_experts == 128);
    CHECK(info.moe_layer_count == 3);
    CHECK(info.param_count == count_params(spec));
    check_round_trip(spec, *om.model);
  }
}
