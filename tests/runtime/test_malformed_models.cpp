// test_malformed_models.cpp — malformed .amxqa files, each made by MUTATING a
// valid tiny model, each with the EXACT status amxqa_model_open must return.
// Mutations work on a plain copy of every field of the file (RawModel, read
// with the generated accessors and rebuilt with the generated Create*
// functions), so the tests can write what write_model() never would; a few
// work on the bytes (truncation, identifier, root offset).
//
// Pinned: a file of fewer than 8 bytes is TRUNCATED; any longer prefix of a
// valid file is CORRUPT (the writer ends every file with the weights blob, so
// every cut breaks a vector the verifier checks).
#include <doctest/doctest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "amxqa.h"
#include "amxqa_generated.h"
#include "format/model_writer.h"
#include "format/random_model.h"
#include "ops/ops.h"  // kReaderHeads

namespace {

using namespace amxqa;

struct RawTensor {
  std::string name;
  uint8_t dtype = 0, layout = 0;
  std::vector<uint32_t> shape;
  uint64_t offset = 0, size = 0, scale_offset = 0;
  uint8_t weight_bits = 8;
};

// Every field of a model file, as plain values.
struct RawModel {
  uint32_t format_version = 1;
  uint32_t d_model = 0, n_layers = 0, n_heads = 0, n_kv_heads = 0, head_dim = 0, window = 0;
  uint32_t lin_state = 0, d_ff = 0, moe_experts = 0, moe_top_k = 0, moe_d_ff = 0;
  uint32_t moe_route_block = 0, moe_route_window = 0, vocab_size = 0;
  std::vector<uint8_t> layer_kinds;
  bool has_layer_kinds = true;
  std::vector<uint32_t> moe_layers;
  float rope_theta = 10000.f, norm_eps = 1e-5f;
  bool question_match = false, start_pointer = false, end_pointer = false, no_answer_head = false;
  bool question_reread = false, passage_reader = false;
  uint32_t specials[5] = {};  // pad bos eot ans abstain
  uint32_t byte_base = 0, merge_base = 0, max_piece_len = 0, max_chunk_len = 0;
  std::vector<std::pair<uint32_t, uint32_t>> merges;
  std::vector<uint32_t> merge_index, piece_offsets;
  std::vector<uint8_t> piece_bytes;
  std::vector<uint8_t> vocab_mask;
  bool has_vocab_mask = true;
  std::vector<RawTensor> tensors;
  std::vector<uint8_t> weights;
  bool has_weights = true;
  bool misalign_weights = false;  // place the blob 4 bytes off a 64-byte boundary
};

template <typename T, typename V>
std::vector<T> copy_vec(const V* v) {
  std::vector<T> out;
  if (v)
    for (auto x : *v) out.push_back(static_cast<T>(x));
  return out;
}

RawModel read_raw(const std::vector<uint8_t>& bytes) {
  const fb::Model* m = fb::GetModel(bytes.data());
  const fb::Arch& a = *m->arch();
  RawModel r;
  r.format_version = m->format_version();
  r.d_model = a.d_model(), r.n_layers = a.n_layers(), r.n_heads = a.n_heads();
  r.n_kv_heads = a.n_kv_heads(), r.head_dim = a.head_dim(), r.window = a.window();
  r.lin_state = a.lin_state(), r.d_ff = a.d_ff(), r.moe_experts = a.moe_experts();
  r.moe_top_k = a.moe_top_k(), r.moe_d_ff = a.moe_d_ff(), r.moe_route_block = a.moe_route_block();
  r.moe_route_window = a.moe_route_window(), r.vocab_size = a.vocab_size();
  r.layer_kinds = copy_vec<uint8_t>(a.layer_kinds());
  r.moe_layers = copy_vec<uint32_t>(a.moe_layers());
  r.rope_theta = a.rope_theta(), r.norm_eps = a.norm_eps();
  r.question_match = a.question_match(), r.start_pointer = a.start_pointer();
  r.end_pointer = a.end_pointer(), r.no_answer_head = a.no_answer_head();
  r.question_reread = a.question_reread(), r.passage_reader = a.passage_reader();
  const fb::Specials& s = *m->specials();
  const uint32_t sp[5] = {s.pad(), s.bos(), s.eot(), s.ans(), s.abstain()};
  std::memcpy(r.specials, sp, sizeof sp);
  const fb::Tokenizer& t = *m->tokenizer();
  r.byte_base = t.byte_base(), r.merge_base = t.merge_base();
  r.max_piece_len = t.max_piece_len(), r.max_chunk_len = t.max_chunk_len();
  for (const fb::Merge* mg : *t.merges()) r.merges.emplace_back(mg->left(), mg->right());
  r.merge_index = copy_vec<uint32_t>(t.merge_index());
  r.piece_offsets = copy_vec<uint32_t>(t.piece_offsets());
  r.piece_bytes = copy_vec<uint8_t>(t.piece_bytes());
  r.vocab_mask = copy_vec<uint8_t>(m->vocab_mask());
  for (const fb::Tensor* ft : *m->tensors()) {
    RawTensor rt;
    rt.name = ft->name()->str();
    rt.dtype = static_cast<uint8_t>(ft->dtype());
    rt.layout = static_cast<uint8_t>(ft->layout());
    rt.shape = copy_vec<uint32_t>(ft->shape());
    rt.offset = ft->offset(), rt.size = ft->size(), rt.scale_offset = ft->scale_offset();
    rt.weight_bits = ft->weight_bits();
    r.tensors.push_back(rt);
  }
  r.weights = copy_vec<uint8_t>(m->weights());
  return r;
}

std::vector<uint8_t> build_raw(const RawModel& r) {
  flatbuffers::FlatBufferBuilder fbb(r.weights.size() + (1u << 16));
  flatbuffers::Offset<flatbuffers::Vector<uint8_t>> weights;
  if (r.has_weights && !r.misalign_weights) {
    fbb.PreAlign(r.weights.size(), 64);  // as write_model does
    weights = fbb.CreateVector(r.weights);
  } else if (r.has_weights) {
    // Four trailing bytes put the blob start 4 bytes past an 8-byte boundary.
    std::vector<uint8_t> w = r.weights;
    w.resize(w.size() + 4);
    weights = fbb.CreateVector(w);
  }
  std::vector<flatbuffers::Offset<fb::Tensor>> tensors;
  for (const RawTensor& t : r.tensors)
    tensors.push_back(fb::CreateTensor(fbb, fbb.CreateString(t.name), fb::DType(t.dtype),
                                       fb::Layout(t.layout), fbb.CreateVector(t.shape), t.offset,
                                       t.size, t.scale_offset, t.weight_bits));
  const auto ftensors = fbb.CreateVector(tensors);
  flatbuffers::Offset<flatbuffers::Vector<uint8_t>> mask;
  if (r.has_vocab_mask) mask = fbb.CreateVector(r.vocab_mask);
  std::vector<fb::Merge> merges;
  for (const auto& mg : r.merges) merges.emplace_back(mg.first, mg.second);
  const auto ftok = fb::CreateTokenizer(
      fbb, r.byte_base, r.merge_base, fbb.CreateVectorOfStructs(merges),
      fbb.CreateVector(r.merge_index), fbb.CreateVector(r.piece_bytes),
      fbb.CreateVector(r.piece_offsets), r.max_piece_len, r.max_chunk_len);
  const auto fsp = fb::CreateSpecials(fbb, r.specials[0], r.specials[1], r.specials[2],
                                      r.specials[3], r.specials[4]);
  flatbuffers::Offset<flatbuffers::Vector<fb::LayerKind>> kinds;
  if (r.has_layer_kinds) {
    std::vector<fb::LayerKind> k;
    for (uint8_t x : r.layer_kinds) k.push_back(fb::LayerKind(x));
    kinds = fbb.CreateVector(k);
  }
  const auto farch = fb::CreateArch(fbb, r.d_model, r.n_layers, kinds, r.n_heads, r.n_kv_heads,
                                    r.head_dim, r.window, r.lin_state, r.d_ff, r.moe_experts,
                                    r.moe_top_k, r.moe_d_ff, r.moe_route_block,
                                    r.moe_route_window, fbb.CreateVector(r.moe_layers),
                                    r.vocab_size, r.rope_theta, r.norm_eps, r.question_match,
                                    r.start_pointer, r.end_pointer, r.no_answer_head,
                                    r.question_reread, r.passage_reader);
  const auto root = fb::CreateModel(fbb, r.format_version, farch, fsp, ftok, mask, ftensors,
                                    weights, 0);
  fb::FinishModelBuffer(fbb, root);
  return std::vector<uint8_t>(fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize());
}

// Appends an f32 tensor of zeros (64-aligned, as write_model places them).
void add_f32_tensor(RawModel& r, const std::string& name, std::vector<uint32_t> shape) {
  RawTensor t;
  t.name = name;
  t.shape = std::move(shape);
  t.size = 4;
  for (uint32_t d : t.shape) t.size *= d;
  t.offset = (r.weights.size() + 63) / 64 * 64;
  r.weights.resize((t.offset + t.size + 63) / 64 * 64, 0);
  r.tensors.push_back(t);
}

// MODEL.md "No-answer head": the flag (with the start pointer it needs) and
// its [d, d] f32 tensor.
void add_no_answer_head(RawModel& r) {
  r.start_pointer = r.no_answer_head = true;
  add_f32_tensor(r, "no_answer_w", {r.d_model, r.d_model});
}

// MODEL.md "Passage reader": the flag (with the start pointer it needs) and
// its four matrices (f32 here), kReaderHeads heads of head_dim.
void add_passage_reader(RawModel& r) {
  r.start_pointer = r.passage_reader = true;
  const uint32_t rw = ops::kReaderHeads * r.head_dim;
  for (const char* name : {"reader_wq", "reader_wk", "reader_wv"}) add_f32_tensor(r, name, {rw, r.d_model});
  add_f32_tensor(r, "reader_wo", {r.d_model, rw});
}

RawTensor& tensor(RawModel& r, const std::string& name) {
  for (RawTensor& t : r.tensors)
    if (t.name == name) return t;
  FAIL("no tensor " << name);
  return r.tensors[0];
}

struct Outcome {
  amxqa_status open = AMXQA_OK, verify = AMXQA_OK;
  unsigned reports = 0;
  std::string message;
};

Outcome try_open(const std::vector<uint8_t>& bytes) {
  const size_t cap = (bytes.size() / 64 + 1) * 64;
  std::unique_ptr<uint8_t, decltype(&std::free)> mem(
      static_cast<uint8_t*>(std::aligned_alloc(64, cap)), &std::free);
  if (!bytes.empty()) std::memcpy(mem.get(), bytes.data(), bytes.size());
  alignas(64) static unsigned char storage[AMXQA_MODEL_STORAGE_BYTES];
  amxqa_model* model = nullptr;
  Outcome o;
  o.open = amxqa_model_open(mem.get(), bytes.size(), storage, &model);
  o.message = amxqa_last_error(nullptr);
  o.verify = amxqa_model_verify(
      mem.get(), bytes.size(),
      [](void* user, amxqa_status, const char*) { ++*static_cast<unsigned*>(user); }, &o.reports);
  return o;
}

using RawMutation = std::function<void(RawModel&)>;
using ByteMutation = std::function<void(std::vector<uint8_t>&)>;

struct Case {
  std::string name;
  amxqa_status want;
  DType dtype;  // of the base tiny model
  RawMutation raw;
  ByteMutation bytes;
};

std::vector<uint8_t> base_bytes(DType dt) {
  static std::map<int, std::vector<uint8_t>> cache;
  auto& b = cache[int(dt)];
  if (b.empty()) b = write_model(make_random_model("tiny", 1, dt));
  return b;
}

void set_u32(std::vector<uint8_t>& b, size_t at, uint32_t v) { std::memcpy(&b[at], &v, 4); }

std::vector<Case> all_cases() {
  const DType F = DType::f32, B = DType::bf16, Q = DType::i8;
  std::vector<Case> c;
  auto raw = [&](std::string name, amxqa_status want, RawMutation m, DType dt = DType::f32) {
    c.push_back({std::move(name), want, dt, std::move(m), nullptr});
  };
  auto bytes = [&](std::string name, amxqa_status want, ByteMutation m) {
    c.push_back({std::move(name), want, F, nullptr, std::move(m)});
  };
  const size_t full = base_bytes(F).size();
  const uint64_t u64max = std::numeric_limits<uint64_t>::max();

  // ---- container
  for (size_t len : {size_t(0), size_t(1), size_t(4), size_t(7)})
    bytes("truncated to " + std::to_string(len), AMXQA_ERR_MODEL_TRUNCATED,
          [len](std::vector<uint8_t>& b) { b.resize(len); });
  for (size_t len : {size_t(8), size_t(12), size_t(64), size_t(1000), full / 4, full / 2,
                     full - 4096, full - 64, full - 1})
    bytes("truncated to " + std::to_string(len), AMXQA_ERR_MODEL_CORRUPT,
          [len](std::vector<uint8_t>& b) { b.resize(len); });
  bytes("wrong identifier", AMXQA_ERR_MODEL_IDENTIFIER, [](std::vector<uint8_t>& b) { b[4] = 'X'; });
  bytes("root offset past the end", AMXQA_ERR_MODEL_CORRUPT,
        [](std::vector<uint8_t>& b) { set_u32(b, 0, 0xfffffff0u); });
  bytes("root offset misaligned", AMXQA_ERR_MODEL_CORRUPT, [](std::vector<uint8_t>& b) {
    uint32_t root;
    std::memcpy(&root, b.data(), 4);
    set_u32(b, 0, root + 1);
  });
  raw("future format version", AMXQA_ERR_MODEL_VERSION, [](RawModel& r) { r.format_version = 2; });
  raw("format version 0", AMXQA_ERR_MODEL_VERSION, [](RawModel& r) { r.format_version = 0; });

  // ---- architecture
  raw("d_model 0", AMXQA_ERR_MODEL_ARCH, [](RawModel& r) { r.d_model = 0; });
  raw("d_model huge", AMXQA_ERR_MODEL_ARCH, [](RawModel& r) { r.d_model = 1u << 20; });
  raw("n_layers 0", AMXQA_ERR_MODEL_ARCH, [](RawModel& r) { r.n_layers = 0; });
  raw("n_layers 33", AMXQA_ERR_MODEL_ARCH, [](RawModel& r) {
    r.n_layers = 33;
    r.layer_kinds.resize(33);
  });
  raw("n_layers != layer_kinds length", AMXQA_ERR_MODEL_ARCH, [](RawModel& r) { r.n_layers = 3; });
  raw("layer_kinds missing", AMXQA_ERR_MODEL_ARCH, [](RawModel& r) { r.has_layer_kinds = false; });
  raw("layer kind 7", AMXQA_ERR_MODEL_ARCH, [](RawModel& r) { r.layer_kinds[1] = 7; });
  raw("n_heads 0", AMXQA_ERR_MODEL_ARCH, [](RawModel& r) { r.n_heads = 0; });
  raw("n_heads huge", AMXQA_ERR_MODEL_ARCH, [](RawModel& r) { r.n_heads = 65; });
  raw("n_kv_heads 0", AMXQA_ERR_MODEL_ARCH, [](RawModel& r) { r.n_kv_heads = 0; });
  raw("n_kv_heads does not divide n_heads", AMXQA_ERR_MODEL_ARCH, [](RawModel& r) {
    r.n_heads = 3;
    r.n_kv_heads = 2;
  });
  raw("head_dim 0", AMXQA_ERR_MODEL_ARCH, [](RawModel& r) { r.head_dim = 0; });
  raw("head_dim odd", AMXQA_ERR_MODEL_ARCH, [](RawModel& r) { r.head_dim = 31; });
  raw("head_dim huge", AMXQA_ERR_MODEL_ARCH, [](RawModel& r) { r.head_dim = 512; });
  raw("window 0", AMXQA_ERR_MODEL_ARCH, [](RawModel& r) { r.window = 0; });
  raw("window huge", AMXQA_ERR_MODEL_ARCH, [](RawModel& r) { r.window = 0xffffffffu; });
  raw("lin_state 0", AMXQA_ERR_MODEL_ARCH, [](RawModel& r) { r.lin_state = 0; });
  raw("d_ff 0", AMXQA_ERR_MODEL_ARCH, [](RawModel& r) { r.d_ff = 0; });
  raw("d_ff huge", AMXQA_ERR_MODEL_ARCH, [](RawModel& r) { r.d_ff = 1u << 20; });
  raw("vocab_size 0", AMXQA_ERR_MODEL_ARCH, [](RawModel& r) { r.vocab_size = 0; });
  raw("vocab_size huge", AMXQA_ERR_MODEL_ARCH, [](RawModel& r) { r.vocab_size = 0xffffffffu; });
  raw("rope_theta NaN", AMXQA_ERR_MODEL_ARCH, [](RawModel& r) { r.rope_theta = NAN; });
  raw("norm_eps 0", AMXQA_ERR_MODEL_ARCH, [](RawModel& r) { r.norm_eps = 0.f; });

  // ---- MoE
  raw("moe k > E", AMXQA_ERR_MODEL_MOE, [](RawModel& r) { r.moe_top_k = 5; });
  raw("moe k 0", AMXQA_ERR_MODEL_MOE, [](RawModel& r) { r.moe_top_k = 0; });
  raw("moe k > kMaxTopK", AMXQA_ERR_MODEL_MOE, [](RawModel& r) {
    r.moe_experts = 64;
    r.moe_top_k = 17;
  });
  raw("moe E huge", AMXQA_ERR_MODEL_MOE, [](RawModel& r) { r.moe_experts = 5000; });
  raw("moe d_ff 0", AMXQA_ERR_MODEL_MOE, [](RawModel& r) { r.moe_d_ff = 0; });
  raw("moe route block 0", AMXQA_ERR_MODEL_MOE, [](RawModel& r) { r.moe_route_block = 0; });
  raw("moe route window 0", AMXQA_ERR_MODEL_MOE, [](RawModel& r) { r.moe_route_window = 0; });
  raw("moe layer out of range", AMXQA_ERR_MODEL_MOE, [](RawModel& r) { r.moe_layers = {2}; });
  raw("moe layers unsorted", AMXQA_ERR_MODEL_MOE, [](RawModel& r) { r.moe_layers = {1, 0}; });
  raw("moe layers repeated", AMXQA_ERR_MODEL_MOE, [](RawModel& r) { r.moe_layers = {0, 0}; });
  raw("moe layers without experts", AMXQA_ERR_MODEL_MOE, [](RawModel& r) { r.moe_experts = 0; });

  // ---- specials
  raw("specials eot moved", AMXQA_ERR_MODEL_SPECIALS, [](RawModel& r) { r.specials[2] = 7; });
  raw("specials pad duplicates bos", AMXQA_ERR_MODEL_SPECIALS, [](RawModel& r) { r.specials[0] = 1; });
  raw("specials abstain past vocab", AMXQA_ERR_MODEL_SPECIALS,
      [](RawModel& r) { r.specials[4] = 100000; });

  // ---- tokenizer
  raw("byte_base 6", AMXQA_ERR_MODEL_TOKENIZER, [](RawModel& r) { r.byte_base = 6; });
  raw("merge_base 300", AMXQA_ERR_MODEL_TOKENIZER, [](RawModel& r) { r.merge_base = 300; });
  raw("merge count != vocab - 261", AMXQA_ERR_MODEL_TOKENIZER, [](RawModel& r) {
    r.merges.pop_back();
  });
  raw("merge id out of range", AMXQA_ERR_MODEL_TOKENIZER,
      [](RawModel& r) { r.merges[0].first = 100000; });
  raw("merge refers to itself (cycle)", AMXQA_ERR_MODEL_TOKENIZER,
      [](RawModel& r) { r.merges[5].second = 261 + 5; });
  raw("merge forward reference", AMXQA_ERR_MODEL_TOKENIZER,
      [](RawModel& r) { r.merges[3].first = 261 + 10; });
  raw("merge of a special token", AMXQA_ERR_MODEL_TOKENIZER,
      [](RawModel& r) { r.merges[0].second = 2; });
  raw("merge_index unsorted", AMXQA_ERR_MODEL_TOKENIZER,
      [](RawModel& r) { std::swap(r.merge_index[3], r.merge_index[4]); });
  raw("merge_index short", AMXQA_ERR_MODEL_TOKENIZER, [](RawModel& r) { r.merge_index.pop_back(); });
  raw("merge_index rank out of range", AMXQA_ERR_MODEL_TOKENIZER,
      [](RawModel& r) { r.merge_index.back() = 1000; });
  raw("piece_offsets short", AMXQA_ERR_MODEL_TOKENIZER, [](RawModel& r) { r.piece_offsets.pop_back(); });
  raw("piece_offsets decreasing", AMXQA_ERR_MODEL_TOKENIZER,
      [](RawModel& r) { r.piece_offsets[100] = r.piece_offsets[99] - 1; });
  raw("piece_offsets past piece_bytes", AMXQA_ERR_MODEL_TOKENIZER,
      [](RawModel& r) { r.piece_offsets.back() += 1; });
  raw("piece bytes disagree with merges", AMXQA_ERR_MODEL_TOKENIZER,
      [](RawModel& r) { r.piece_bytes[r.piece_offsets[270]] ^= 0x20; });
  raw("byte piece wrong", AMXQA_ERR_MODEL_TOKENIZER,
      [](RawModel& r) { r.piece_bytes[r.piece_offsets[5 + 'a']] = 'b'; });
  raw("max_piece_len too small", AMXQA_ERR_MODEL_TOKENIZER, [](RawModel& r) { r.max_piece_len = 2; });
  raw("max_piece_len huge", AMXQA_ERR_MODEL_TOKENIZER, [](RawModel& r) { r.max_piece_len = 100000; });
  raw("max_chunk_len 0", AMXQA_ERR_MODEL_TOKENIZER, [](RawModel& r) { r.max_chunk_len = 0; });
  raw("max_chunk_len huge", AMXQA_ERR_MODEL_TOKENIZER, [](RawModel& r) { r.max_chunk_len = 257; });

  // ---- vocabulary mask
  raw("vocab_mask short", AMXQA_ERR_MODEL_VOCAB_MASK, [](RawModel& r) { r.vocab_mask.pop_back(); });
  raw("vocab_mask long", AMXQA_ERR_MODEL_VOCAB_MASK, [](RawModel& r) { r.vocab_mask.push_back(0xff); });
  raw("vocab_mask missing", AMXQA_ERR_MODEL_VOCAB_MASK, [](RawModel& r) { r.has_vocab_mask = false; });
  raw("vocab_mask forbids EOT", AMXQA_ERR_MODEL_VOCAB_MASK, [](RawModel& r) { r.vocab_mask[0] &= ~4u; });
  raw("vocab_mask forbids ABSTAIN", AMXQA_ERR_MODEL_VOCAB_MASK,
      [](RawModel& r) { r.vocab_mask[0] &= ~16u; });
  raw("vocab_mask bits past vocab", AMXQA_ERR_MODEL_VOCAB_MASK,
      [](RawModel& r) { r.vocab_mask.back() |= 0x80; });

  // ---- tensors
  raw("tensor missing", AMXQA_ERR_MODEL_TENSOR, [](RawModel& r) { r.tensors.erase(r.tensors.begin() + 4); });
  raw("tensor renamed", AMXQA_ERR_MODEL_TENSOR, [](RawModel& r) { tensor(r, "l1.w2").name = "l1.bogus"; });
  raw("tensor duplicated name", AMXQA_ERR_MODEL_TENSOR, [](RawModel& r) { tensor(r, "l1.w2").name = "l1.w1"; });
  raw("tensor extra", AMXQA_ERR_MODEL_TENSOR, [](RawModel& r) { r.tensors.push_back(r.tensors[0]); });
  raw("dense tensor in a MoE layer", AMXQA_ERR_MODEL_TENSOR,
      [](RawModel& r) { tensor(r, "l0.moe_w2").name = "l0.w2"; });
  raw("tensor shape swapped", AMXQA_ERR_MODEL_TENSOR, [](RawModel& r) {
    auto& s = tensor(r, "l1.w1").shape;
    std::swap(s[0], s[1]);
  });
  raw("tensor rank wrong", AMXQA_ERR_MODEL_TENSOR, [](RawModel& r) { tensor(r, "l0.moe_w1").shape = {192, 64}; });
  raw("tensor shape missing", AMXQA_ERR_MODEL_TENSOR, [](RawModel& r) { tensor(r, "l1.wo").shape.clear(); });
  raw("norm stored as bf16", AMXQA_ERR_MODEL_TENSOR, [](RawModel& r) {
    auto& t = tensor(r, "final_norm");
    t.dtype = 1;
    t.size /= 2;
  });
  raw("router stored as i8", AMXQA_ERR_MODEL_TENSOR, [](RawModel& r) { tensor(r, "l0.router").dtype = 2; });
  raw("dtype unknown", AMXQA_ERR_MODEL_TENSOR, [](RawModel& r) { tensor(r, "l1.wq").dtype = 9; });
  raw("size too small", AMXQA_ERR_MODEL_TENSOR, [](RawModel& r) { tensor(r, "l1.wk").size -= 4; });
  raw("size huge", AMXQA_ERR_MODEL_TENSOR, [=](RawModel& r) { tensor(r, "l1.wk").size = u64max; });
  raw("offset + size overflows", AMXQA_ERR_MODEL_OVERFLOW,
      [=](RawModel& r) { tensor(r, "l1.wv").offset = u64max - 63; });
  raw("offset past the blob", AMXQA_ERR_MODEL_TENSOR,
      [](RawModel& r) { tensor(r, "l1.wv").offset = r.weights.size(); });
  raw("tensor straddles the blob end", AMXQA_ERR_MODEL_TENSOR,
      [](RawModel& r) { tensor(r, "tok_emb").offset = r.weights.size() - 64; });
  raw("offset misaligned", AMXQA_ERR_MODEL_ALIGNMENT, [](RawModel& r) { tensor(r, "l0.wo").offset += 4; });
  raw("weights blob misaligned", AMXQA_ERR_MODEL_ALIGNMENT, [](RawModel& r) { r.misalign_weights = true; });
  raw("weights missing", AMXQA_ERR_MODEL_TENSOR, [](RawModel& r) { r.has_weights = false; });

  // ---- layouts
  raw("vnni2 on an f32 matrix", AMXQA_ERR_MODEL_LAYOUT, [](RawModel& r) { tensor(r, "l1.wq").layout = 1; });
  raw("vnni4 on a bf16 matrix", AMXQA_ERR_MODEL_LAYOUT, [](RawModel& r) { tensor(r, "l1.wq").layout = 2; }, B);
  raw("vnni2 on an i8 matrix", AMXQA_ERR_MODEL_LAYOUT, [](RawModel& r) { tensor(r, "l1.w1").layout = 1; }, Q);
  raw("layout unknown", AMXQA_ERR_MODEL_LAYOUT, [](RawModel& r) { tensor(r, "l1.wq").layout = 7; });
  raw("packed norm", AMXQA_ERR_MODEL_LAYOUT, [](RawModel& r) { tensor(r, "l0.attn_norm").layout = 1; });
  // d_ff changes the columns of l1.w2; l1.w1 is resized consistently (it is
  // followed by l1.w2 in the blob, so it stays inside), so only the layout fails.
  raw("vnni2 with an odd number of columns", AMXQA_ERR_MODEL_LAYOUT, [](RawModel& r) {
    r.d_ff = 161;
    tensor(r, "l1.w1").shape = {161, 64};
    tensor(r, "l1.w1").size = 161 * 64 * 2;
    tensor(r, "l1.w2").shape = {64, 161};
  }, B);
  raw("vnni4 with columns not a multiple of 4", AMXQA_ERR_MODEL_LAYOUT, [](RawModel& r) {
    r.d_ff = 162;
    tensor(r, "l1.w1").shape = {162, 64};
    tensor(r, "l1.w1").size = 162 * 64;
    tensor(r, "l1.w2").shape = {64, 162};
  }, Q);

  // ---- int8 scales
  raw("i8 scales past the blob", AMXQA_ERR_MODEL_TENSOR,
      [](RawModel& r) { tensor(r, "l1.w1").scale_offset = r.weights.size(); }, Q);
  raw("i8 scales misaligned", AMXQA_ERR_MODEL_ALIGNMENT,
      [](RawModel& r) { tensor(r, "l1.w1").scale_offset += 4; }, Q);
  raw("i8 scale range overflows", AMXQA_ERR_MODEL_OVERFLOW,
      [=](RawModel& r) { tensor(r, "l0.moe_w1").scale_offset = u64max - 63; }, Q);

  // ---- 7-bit weights (MODEL.md "7-bit weights")
  raw("weight_bits 7 on a bf16 matrix", AMXQA_ERR_MODEL_TENSOR,
      [](RawModel& r) { tensor(r, "l1.w1").weight_bits = 7; }, B);
  raw("weight_bits 6 on an i8 matrix", AMXQA_ERR_MODEL_TENSOR,
      [](RawModel& r) { tensor(r, "l1.w1").weight_bits = 6; }, Q);
  raw("weight_bits 7 with a weight outside [-64, 63]", AMXQA_ERR_MODEL_TENSOR, [](RawModel& r) {
    RawTensor& t = tensor(r, "l1.w1");
    for (uint64_t i = 0; i < t.size; ++i) r.weights[t.offset + i] &= 0x3f;  // all in [0, 63]
    t.weight_bits = 7;
    r.weights[t.offset + t.size - 1] = 64;  // the last one out
  }, Q);

  // ---- passage reader (MODEL.md "Passage reader")
  raw("passage_reader without reader_wv", AMXQA_ERR_MODEL_TENSOR, [](RawModel& r) {
    add_passage_reader(r);
    r.tensors.erase(r.tensors.end() - 2);
  });
  raw("passage_reader without start_pointer", AMXQA_ERR_MODEL_ARCH, [](RawModel& r) {
    add_passage_reader(r);
    r.start_pointer = false;
  });
  raw("reader_w* without passage_reader", AMXQA_ERR_MODEL_TENSOR, [](RawModel& r) {
    add_passage_reader(r);
    r.passage_reader = false;
  });
  raw("reader_wq as a vector", AMXQA_ERR_MODEL_TENSOR, [](RawModel& r) {
    add_passage_reader(r);
    tensor(r, "reader_wq").shape.resize(1);
  });
  raw("reader_wo of shape [d, r/2]", AMXQA_ERR_MODEL_TENSOR, [](RawModel& r) {
    add_passage_reader(r);
    tensor(r, "reader_wo").shape[1] /= 2;
  });

  // ---- no-answer head (MODEL.md "No-answer head")
  raw("no_answer_head without no_answer_w", AMXQA_ERR_MODEL_TENSOR,
      [](RawModel& r) { r.start_pointer = r.no_answer_head = true; });
  raw("no_answer_head without start_pointer", AMXQA_ERR_MODEL_ARCH, [](RawModel& r) {
    add_no_answer_head(r);
    r.start_pointer = false;
  });
  raw("no_answer_w without no_answer_head", AMXQA_ERR_MODEL_TENSOR, [](RawModel& r) {
    add_no_answer_head(r);
    r.no_answer_head = false;
  });
  raw("no_answer_w of shape [d, d/2]", AMXQA_ERR_MODEL_TENSOR, [](RawModel& r) {
    r.start_pointer = r.no_answer_head = true;
    add_f32_tensor(r, "no_answer_w", {r.d_model, r.d_model / 2});
  });
  raw("no_answer_w as a vector", AMXQA_ERR_MODEL_TENSOR, [](RawModel& r) {
    r.start_pointer = r.no_answer_head = true;
    add_f32_tensor(r, "no_answer_w", {r.d_model});
  });
  raw("no_answer_w stored as bf16", AMXQA_ERR_MODEL_TENSOR, [](RawModel& r) {
    add_no_answer_head(r);
    tensor(r, "no_answer_w").dtype = 1;
    tensor(r, "no_answer_w").size /= 2;
  });
  return c;
}

}  // namespace

TEST_SUITE("unit") {
  TEST_CASE("the raw rebuild of a valid model is valid") {
    for (DType dt : {DType::f32, DType::bf16, DType::i8}) {
      const Outcome o = try_open(build_raw(read_raw(base_bytes(dt))));
      CHECK(o.open == AMXQA_OK);
      CHECK(o.verify == AMXQA_OK);
      CHECK(o.reports == 0);
    }
    // With the no-answer head's flag and tensor (the base of its malformed cases).
    RawModel r = read_raw(base_bytes(DType::bf16));
    add_no_answer_head(r);
    const Outcome o = try_open(build_raw(r));
    CHECK(o.open == AMXQA_OK);
    CHECK(o.reports == 0);
    // With the passage reader's flag and tensors (the base of its malformed cases).
    RawModel pr = read_raw(base_bytes(DType::bf16));
    add_passage_reader(pr);
    const Outcome po = try_open(build_raw(pr));
    CHECK(po.open == AMXQA_OK);
    CHECK(po.reports == 0);
  }

  TEST_CASE("every malformed model gets its exact status") {
    const std::vector<Case> cases = all_cases();
    std::map<std::string, int> per_status;
    for (const Case& k : cases) {
      std::vector<uint8_t> b = base_bytes(k.dtype);
      if (k.raw) {
        RawModel r = read_raw(b);
        k.raw(r);
        b = build_raw(r);
      } else {
        k.bytes(b);
      }
      CAPTURE(k.name);
      const Outcome o = try_open(b);
      CAPTURE(o.message);
      CHECK(amxqa_status_name(o.open) == std::string(amxqa_status_name(k.want)));
      CHECK(o.verify == o.open);
      CHECK(o.reports >= 1);
      CHECK_FALSE(o.message.empty());
      ++per_status[amxqa_status_name(k.want)];
    }
    CHECK(cases.size() >= 40);
    MESSAGE(cases.size() << " malformed models");
    for (const auto& kv : per_status) MESSAGE(kv.first << ": " << kv.second);
  }

  TEST_CASE("every truncation of a valid file is TRUNCATED or CORRUPT") {
    const std::vector<uint8_t> full = base_bytes(DType::f32);
    for (size_t len = 0; len < full.size(); len += (len < 4096 ? 1 : 997)) {
      CAPTURE(len);
      const Outcome o = try_open(std::vector<uint8_t>(full.begin(), full.begin() + long(len)));
      CHECK(o.open == (len < 8 ? AMXQA_ERR_MODEL_TRUNCATED : AMXQA_ERR_MODEL_CORRUPT));
    }
  }

  TEST_CASE("random corruption of the metadata never crashes") {
    // Flip bytes in front of the weights blob (tables, vectors, strings):
    // any status is acceptable, reading out of bounds or crashing is not.
    const std::vector<uint8_t> full = base_bytes(DType::f32);
    const size_t meta = full.size() - read_raw(full).weights.size();
    uint64_t state = 12345;
    auto next = [&state] {
      state = state * 6364136223846793005ull + 1442695040888963407ull;
      return state >> 33;
    };
    int opened = 0;
    for (int iter = 0; iter < 1500; ++iter) {
      std::vector<uint8_t> b = full;
      const int flips = 1 + int(next() % 4);
      for (int f = 0; f < flips; ++f) b[next() % meta] ^= uint8_t(1u << (next() % 8));
      const Outcome o = try_open(b);
      CHECK(o.open == o.verify);
      CHECK((o.open == AMXQA_OK || (o.open >= AMXQA_ERR_MODEL_TRUNCATED &&
                                    o.open <= AMXQA_ERR_MODEL_OVERFLOW)));
      opened += o.open == AMXQA_OK;
    }
    MESSAGE(opened << " of 1500 corrupted files still opened");
  }

  TEST_CASE("messages name the field") {
    RawModel r = read_raw(base_bytes(DType::f32));
    r.n_kv_heads = 0;
    Outcome o = try_open(build_raw(r));
    CHECK(o.open == AMXQA_ERR_MODEL_ARCH);
    CHECK(o.message == "arch.n_kv_heads: 0 is not in [1, 64]");

    r = read_raw(base_bytes(DType::f32));
    tensor(r, "l1.wk").size -= 4;
    o = try_open(build_raw(r));
    CHECK(o.message.find("tensor l1.wk: size") == 0);

    r = read_raw(base_bytes(DType::f32));
    r.merges[3].first = 300;
    o = try_open(build_raw(r));
    CHECK(o.message.find("tokenizer.merges[3]") == 0);

    r = read_raw(base_bytes(DType::f32));
    r.start_pointer = r.no_answer_head = true;
    o = try_open(build_raw(r));
    CHECK(o.message == "tensor no_answer_w: missing (arch.no_answer_head is set: MODEL.md \"No-answer head\")");
  }

  TEST_CASE("verify reports every independent failure") {
    RawModel r = read_raw(base_bytes(DType::f32));
    r.d_model = 0;                          // arch
    r.moe_top_k = 9;                        // MoE
    r.specials[2] = 9;                      // specials
    r.max_chunk_len = 0;                    // tokenizer
    r.vocab_mask.pop_back();                // vocabulary mask
    const std::vector<uint8_t> b = build_raw(r);
    std::vector<std::pair<amxqa_status, std::string>> seen;
    const size_t cap = (b.size() / 64 + 1) * 64;
    std::unique_ptr<uint8_t, decltype(&std::free)> mem(
        static_cast<uint8_t*>(std::aligned_alloc(64, cap)), &std::free);
    std::memcpy(mem.get(), b.data(), b.size());
    const amxqa_status st = amxqa_model_verify(
        mem.get(), b.size(),
        [](void* user, amxqa_status s, const char* msg) {
          static_cast<decltype(seen)*>(user)->emplace_back(s, msg);
        },
        &seen);
    CHECK(st == AMXQA_ERR_MODEL_ARCH);
    REQUIRE(seen.size() == 5);
    CHECK(seen[0].first == AMXQA_ERR_MODEL_ARCH);
    CHECK(seen[1].first == AMXQA_ERR_MODEL_MOE);
    CHECK(seen[2].first == AMXQA_ERR_MODEL_SPECIALS);
    CHECK(seen[3].first == AMXQA_ERR_MODEL_TOKENIZER);
    CHECK(seen[4].first == AMXQA_ERR_MODEL_VOCAB_MASK);
    CHECK(seen[0].second == "arch.d_model: 0 is not in [1, 4096]");
    CHECK(amxqa_model_verify(mem.get(), b.size(), nullptr, nullptr) == AMXQA_ERR_MODEL_ARCH);
  }
}
