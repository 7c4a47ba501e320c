// model_reader.cpp — read_model(): see model_reader.h.
#include "format/model_reader.h"

#include <stdexcept>
#include <string>

#include "amxqa_generated.h"
#include "flatbuffers/flatbuffers.h"

namespace amxqa {
namespace {

std::string str(const flatbuffers::String* s) { return s ? s->str() : std::string(); }

template <class T>
std::vector<T> vec(const flatbuffers::Vector<T>* v) {
  return v ? std::vector<T>(v->begin(), v->end()) : std::vector<T>();
}

// The bytes [offset, offset + size) of the weights blob.
std::vector<uint8_t> blob_bytes(const flatbuffers::Vector<uint8_t>* blob, uint64_t offset, uint64_t size,
                                const std::string& what) {
  if (!blob || offset > blob->size() || size > blob->size() - offset)
    throw std::runtime_error("read_model: tensor " + what + " lies outside the weights");
  return std::vector<uint8_t>(blob->data() + offset, blob->data() + offset + size);
}

}  // namespace

ModelSpec read_model(const uint8_t* data, size_t size) {
  flatbuffers::Verifier verifier(data, size);
  if (!fb::VerifyModelBuffer(verifier)) throw std::runtime_error("read_model: not an .amxqa model");
  const fb::Model& m = *fb::GetModel(data);
  ModelSpec spec;
  spec.format_version = m.format_version();

  const fb::Arch& a = *m.arch();
  ArchConfig& c = spec.arch;
  c.d_model = a.d_model();
  c.n_layers = a.n_layers();
  if (a.layer_kinds())
    for (fb::LayerKind k : *a.layer_kinds()) c.layer_kinds.push_back(static_cast<uint8_t>(k));
  c.n_heads = a.n_heads();
  c.n_kv_heads = a.n_kv_heads();
  c.head_dim = a.head_dim();
  c.window = a.window();
  c.lin_state = a.lin_state();
  c.d_ff = a.d_ff();
  c.moe_experts = a.moe_experts();
  c.moe_top_k = a.moe_top_k();
  c.moe_d_ff = a.moe_d_ff();
  c.moe_route_block = a.moe_route_block();
  c.moe_route_window = a.moe_route_window();
  c.moe_layers = vec(a.moe_layers());
  c.vocab_size = a.vocab_size();
  c.rope_theta = a.rope_theta();
  c.norm_eps = a.norm_eps();
  c.question_match = a.question_match();
  c.start_pointer = a.start_pointer();
  c.end_pointer = a.end_pointer();
  c.no_answer_head = a.no_answer_head();
  c.question_reread = a.question_reread();
  c.passage_reader = a.passage_reader();

  // The writer derives the pieces and the merge index from the merges.
  const fb::Tokenizer& t = *m.tokenizer();
  spec.tokenizer.max_chunk_len = t.max_chunk_len();
  if (t.merges())
    for (const fb::Merge* mg : *t.merges()) spec.tokenizer.merges.emplace_back(mg->left(), mg->right());

  spec.vocab_mask.assign(c.vocab_size, 0);
  const auto* mask = m.vocab_mask();
  for (uint32_t i = 0; i < c.vocab_size; ++i)
    spec.vocab_mask[i] = mask && (i >> 3) < mask->size() && ((mask->Get(i >> 3) >> (i & 7)) & 1);

  for (const fb::Tensor* x : *m.tensors()) {
    TensorSpec ts;
    ts.name = x->name()->str();
    ts.shape = vec(x->shape());
    ts.dtype = static_cast<DType>(x->dtype());
    ts.layout = static_cast<Layout>(x->layout());
    ts.weight_bits = x->weight_bits();
    ts.stored = blob_bytes(m.weights(), x->offset(), x->size(), ts.name);
    if (ts.dtype == DType::i8 && !ts.shape.empty()) {
      uint64_t rows = 1;
      for (size_t i = 0; i + 1 < ts.shape.size(); ++i) rows *= ts.shape[i];
      ts.stored_scales = blob_bytes(m.weights(), x->scale_offset(), rows * sizeof(float), ts.name + " (scales)");
    }
    spec.tensors.push_back(std::move(ts));
  }

  if (const fb::Provenance* p = m.provenance()) {
    Provenance& q = spec.provenance;
    q.trainer_version = str(p->trainer_version());
    q.recipe = str(p->recipe());
    q.recipe_text = str(p->recipe_text());
    q.notes = str(p->notes());
    if (p->data_digests())
      for (const flatbuffers::String* d : *p->data_digests()) q.data_digests.push_back(d->str());
    q.tokens_seen = p->tokens_seen();
    q.wall_seconds = p->wall_seconds();
    if (p->scores())
      for (const fb::Score* s : *p->scores()) q.scores.emplace_back(s->name()->str(), s->value());
  }
  if (const fb::Calibration* cal = m.calibration()) {
    spec.calibration.present = true;
    spec.calibration.no_answer_threshold = cal->no_answer_threshold();
    spec.calibration.method = str(cal->method());
  }
  return spec;
}

}  // namespace amxqa
