// model_open.cpp — amxqa_model_open and friends: validate the file once
// (model_validate.cpp), then build the zero-copy view (model.h) inside the
// caller's storage. Nothing is copied or allocated; after validation every
// pointer below is known to lie inside the file.
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <new>

#include "api/errors.h"
#include "api/struct_size.h"
#include "model/model.h"
#include "model/model_validate.h"

static_assert(sizeof(amxqa_model) <= AMXQA_MODEL_STORAGE_BYTES,
              "amxqa_model must fit the storage the public header promises");
static_assert(alignof(amxqa_model) <= 64, "storage is only promised 64-byte alignment");

namespace amxqa {

WeightView expert_view(const WeightView& stacked, uint32_t e, uint32_t rows_per_expert) {
  // Experts are stored one after the other, each packed on its own, so expert
  // e starts e * rows_per_expert * cols elements in, whatever the layout.
  WeightView v = stacked;
  v.rows = rows_per_expert;
  const size_t elems = size_t(e) * rows_per_expert * stacked.cols;
  v.data = static_cast<const uint8_t*>(stacked.data) + elems * dtype_size(stacked.dtype);
  if (stacked.scales) v.scales = stacked.scales + size_t(e) * rows_per_expert;
  return v;
}

namespace {

constexpr uint8_t kLayerKindLin = static_cast<uint8_t>(fb::LayerKind::lin);  // LayerWeights::kind

bool is_aligned64(const void* p) { return (reinterpret_cast<uintptr_t>(p) & 63u) == 0; }

const fb::Model* root_of(const amxqa_model* m) {
  return static_cast<const fb::Model*>(m->fb_root);
}

// Views of validated tensors: each name exists once with the expected shape.
WeightView view_of(const fb::Model& m, const char* name) {
  const fb::Tensor* t = find_tensor(m, name);
  const uint8_t* blob = m.weights()->data();
  const auto* shape = t->shape();
  WeightView v;
  v.dtype = static_cast<DType>(t->dtype());
  v.layout = static_cast<Layout>(t->layout());
  v.cols = shape->Get(shape->size() - 1);
  v.rows = 1;
  for (uint32_t i = 0; i + 1 < shape->size(); ++i) v.rows *= shape->Get(i);  // stacked: E * rows
  v.data = blob + t->offset();
  if (v.dtype == DType::i8) {
    v.scales = reinterpret_cast<const float*>(blob + t->scale_offset());
    v.bits = t->weight_bits();  // 7 or 8, checked by model_validate.cpp
  }
  return v;
}

const float* f32_of(const fb::Model& m, const char* name) {
  return reinterpret_cast<const float*>(m.weights()->data() + find_tensor(m, name)->offset());
}

const char* layer_tensor(char* buf, size_t cap, uint32_t layer, const char* what) {
  std::snprintf(buf, cap, "l%u.%s", layer, what);
  return buf;
}

void fill_model(const fb::Model& m, const uint8_t* data, size_t len, amxqa_model* out) {
  const fb::Arch& a = *m.arch();
  out->d_model = a.d_model();
  out->n_layers = a.n_layers();
  out->n_heads = a.n_heads();
  out->n_kv_heads = a.n_kv_heads();
  out->head_dim = a.head_dim();
  out->window = a.window();
  out->lin_state = a.lin_state();
  out->d_ff = a.d_ff();
  out->moe_experts = a.moe_experts();
  out->moe_top_k = a.moe_experts() ? a.moe_top_k() : 0;
  out->moe_d_ff = a.moe_experts() ? a.moe_d_ff() : 0;
  out->moe_route_block = a.moe_route_block();
  out->moe_route_window = a.moe_route_window();
  out->vocab_size = a.vocab_size();
  out->rope_theta = a.rope_theta();
  out->norm_eps = a.norm_eps();
  out->question_match = a.question_match();
  out->start_pointer = a.start_pointer();
  out->end_pointer = a.end_pointer();
  out->no_answer_head = a.no_answer_head();
  out->question_reread = a.question_reread();
  const fb::Specials& sp = *m.specials();
  out->pad = sp.pad();
  out->bos = sp.bos();
  out->eot = sp.eot();
  out->ans = sp.ans();
  out->abstain = sp.abstain();
  out->no_answer_threshold = m.calibration() ? m.calibration()->no_answer_threshold() : 0.f;

  const fb::Tokenizer& t = *m.tokenizer();
  TokenizerView& tok = out->tok;
  tok.vocab_size = a.vocab_size();
  tok.byte_base = t.byte_base();
  tok.merge_base = t.merge_base();
  tok.n_merges = t.merges() ? t.merges()->size() : 0;
  // fb::Merge is the struct {uint32 left; uint32 right;}: pairs in place.
  tok.merges = tok.n_merges ? reinterpret_cast<const uint32_t*>(t.merges()->Data()) : nullptr;
  tok.merge_index = tok.n_merges ? t.merge_index()->data() : nullptr;
  tok.piece_bytes = t.piece_bytes() ? t.piece_bytes()->data() : nullptr;
  tok.piece_offsets = t.piece_offsets()->data();
  tok.max_piece_len = t.max_piece_len();
  tok.max_chunk_len = t.max_chunk_len();
  out->vocab_mask = m.vocab_mask()->data();

  out->tok_emb = view_of(m, "tok_emb");
  out->final_norm = f32_of(m, "final_norm");
  out->no_answer_w = a.no_answer_head() ? f32_of(m, "no_answer_w") : nullptr;
  out->passage_reader = a.passage_reader();
  if (a.passage_reader()) {
    out->reader_wq = view_of(m, "reader_wq");
    out->reader_wk = view_of(m, "reader_wk");
    out->reader_wv = view_of(m, "reader_wv");
    out->reader_wo = view_of(m, "reader_wo");
  }
  char nm[32];
  for (uint32_t l = 0; l < a.n_layers(); ++l) {
    LayerWeights& L = out->layers[l];
    L.kind = static_cast<uint8_t>(a.layer_kinds()->Get(l));
    L.moe = false;
    if (a.moe_layers())
      for (uint32_t x : *a.moe_layers()) L.moe |= x == l;
    L.attn_norm = f32_of(m, layer_tensor(nm, sizeof nm, l, "attn_norm"));
    L.ffn_norm = f32_of(m, layer_tensor(nm, sizeof nm, l, "ffn_norm"));
    L.wq = view_of(m, layer_tensor(nm, sizeof nm, l, "wq"));
    L.wk = view_of(m, layer_tensor(nm, sizeof nm, l, "wk"));
    L.wv = view_of(m, layer_tensor(nm, sizeof nm, l, "wv"));
    L.wo = view_of(m, layer_tensor(nm, sizeof nm, l, "wo"));
    if (L.kind == kLayerKindLin) {
      L.wa = f32_of(m, layer_tensor(nm, sizeof nm, l, "wa"));
      L.ba = f32_of(m, layer_tensor(nm, sizeof nm, l, "ba"));
    }
    if (L.moe) {
      L.router = f32_of(m, layer_tensor(nm, sizeof nm, l, "router"));
      L.moe_w1 = view_of(m, layer_tensor(nm, sizeof nm, l, "moe_w1"));
      L.moe_w2 = view_of(m, layer_tensor(nm, sizeof nm, l, "moe_w2"));
    } else {
      L.w1 = view_of(m, layer_tensor(nm, sizeof nm, l, "w1"));
      L.w2 = view_of(m, layer_tensor(nm, sizeof nm, l, "w2"));
    }
  }
  out->fb_root = &m;
  out->data = data;
  out->size = len;
  out->magic = kModelMagic;
}

bool model_ok(const amxqa_model* m) { return m && m->magic == kModelMagic; }

void copy_text(char* dst, size_t cap, const flatbuffers::String* s) {
  const size_t n = s ? (s->size() < cap - 1 ? s->size() : cap - 1) : 0;
  if (n) std::memcpy(dst, s->c_str(), n);
  dst[n] = '\0';
}

}  // namespace
}  // namespace amxqa

using namespace amxqa;

extern "C" {

AMXQA_API amxqa_status amxqa_model_open(const void* data, size_t len, void* storage,
                                        amxqa_model** out_model) {
  if (out_model) *out_model = nullptr;
  if (!data || !storage || !out_model) {
    set_thread_error("amxqa_model_open: %s is NULL",
                     !data ? "data" : !storage ? "storage" : "out_model");
    return AMXQA_ERR_NULL_ARGUMENT;
  }
  if (!is_aligned64(data) || !is_aligned64(storage)) {
    set_thread_error("amxqa_model_open: %s is not 64-byte aligned",
                     !is_aligned64(data) ? "data" : "storage");
    return AMXQA_ERR_MISALIGNED;
  }
  const auto* bytes = static_cast<const uint8_t*>(data);
  CheckSink sink(nullptr, nullptr);
  const fb::Model* root = nullptr;
  const amxqa_status st = validate_model(bytes, len, sink, &root);
  if (st != AMXQA_OK) {
    set_thread_error("%s", sink.first_message());
    return st;
  }
  auto* model = new (storage) amxqa_model();  // placement: the caller's memory
  fill_model(*root, bytes, len, model);
  *out_model = model;
  return AMXQA_OK;
}

AMXQA_API amxqa_status amxqa_model_verify(const void* data, size_t len, amxqa_report_fn report,
                                          void* user) {
  if (!data) {
    if (report) report(user, AMXQA_ERR_NULL_ARGUMENT, "amxqa_model_verify: data is NULL");
    return AMXQA_ERR_NULL_ARGUMENT;
  }
  if (!is_aligned64(data)) {
    if (report) report(user, AMXQA_ERR_MISALIGNED, "amxqa_model_verify: data is not 64-byte aligned");
    return AMXQA_ERR_MISALIGNED;
  }
  CheckSink sink(report, user);
  return validate_model(static_cast<const uint8_t*>(data), len, sink, nullptr);
}

AMXQA_API amxqa_status amxqa_model_get_info(const amxqa_model* model, amxqa_model_info* out) {
  if (!model || !out) return AMXQA_ERR_NULL_ARGUMENT;
  if (!model_ok(model) || !struct_size_ok(out)) return AMXQA_ERR_INVALID_ARGUMENT;
  const fb::Model& m = *root_of(model);
  amxqa_model_info full;
  std::memset(&full, 0, sizeof full);
  amxqa_model_info* info = &full;
  info->format_version = m.format_version();
  info->d_model = model->d_model;
  info->n_layers = model->n_layers;
  info->n_heads = model->n_heads;
  info->n_kv_heads = model->n_kv_heads;
  info->head_dim = model->head_dim;
  info->window = model->window;
  info->lin_state = model->lin_state;
  info->d_ff = model->d_ff;
  info->moe_experts = model->moe_experts;
  info->moe_top_k = model->moe_top_k;
  info->moe_d_ff = model->moe_d_ff;
  info->moe_route_block = model->moe_route_block;
  info->moe_route_window = model->moe_route_window;
  info->moe_layer_count = m.arch()->moe_layers() ? m.arch()->moe_layers()->size() : 0;
  info->vocab_size = model->vocab_size;
  for (uint32_t id = 0; id < model->vocab_size; ++id)
    info->vocab_masked += vocab_allowed(*model, id) ? 0 : 1;

  // "lin swa swa ..." while it fits; one letter per layer ("lssl...") beyond.
  const bool words = model->n_layers * 4 <= sizeof info->layer_kinds;
  size_t w = 0;
  for (uint32_t l = 0; l < model->n_layers; ++l) {
    const bool lin = model->layers[l].kind == kLayerKindLin;
    if (words) {
      if (l) info->layer_kinds[w++] = ' ';
      std::memcpy(info->layer_kinds + w, lin ? "lin" : "swa", 3);
      w += 3;
    } else {
      info->layer_kinds[w++] = lin ? 'l' : 's';
    }
  }
  info->layer_kinds[w] = '\0';

  uint64_t largest = 0, params = 0, inactive = 0;
  DType largest_dtype = DType::f32;
  info->weight_bits = 0;
  for (const fb::Tensor* t : *m.tensors()) {
    if (t->dtype() == fb::DType::i8 && info->weight_bits != 8) info->weight_bits = t->weight_bits();
    uint64_t elems = 1;
    for (uint32_t d : *t->shape()) elems *= d;  // bounded by validation
    params += elems;
    if (t->size() > largest) {
      largest = t->size();
      largest_dtype = static_cast<DType>(t->dtype());
    }
    // Only k of E experts run per token: the rest of an expert tensor is inactive.
    const char* dot = std::strrchr(t->name()->c_str(), '.');
    if (dot && (std::strcmp(dot, ".moe_w1") == 0 || std::strcmp(dot, ".moe_w2") == 0))
      inactive += elems / model->moe_experts * (model->moe_experts - model->moe_top_k);
  }
  std::snprintf(info->weight_dtype, sizeof info->weight_dtype, "%s",
                largest_dtype == DType::f32 ? "f32" : largest_dtype == DType::bf16 ? "bf16" : "int8");
  info->weight_bytes = m.weights() ? m.weights()->size() : 0;
  info->param_count = params;
  info->active_param_count = params - inactive;
  if (const fb::Provenance* p = m.provenance()) {
    copy_text(info->trainer_version, sizeof info->trainer_version, p->trainer_version());
    copy_text(info->recipe, sizeof info->recipe, p->recipe());
    info->tokens_seen = p->tokens_seen();
  }
  if (const fb::Calibration* c = m.calibration()) {
    info->calibrated = 1;
    info->no_answer_threshold = c->no_answer_threshold();
    copy_text(info->calibration_method, sizeof info->calibration_method, c->method());
  }
  copy_out(out, full);
  return AMXQA_OK;
}

AMXQA_API size_t amxqa_model_scores(const amxqa_model* model, const char** names, float* values,
                                    size_t cap) {
  if (!model_ok(model)) return 0;
  const fb::Provenance* p = root_of(model)->provenance();
  if (!p || !p->scores()) return 0;
  const auto& scores = *p->scores();
  for (uint32_t i = 0; i < scores.size() && i < cap; ++i) {
    if (names) names[i] = scores.Get(i)->name()->c_str();
    if (values) values[i] = scores.Get(i)->value();
  }
  return scores.size();
}

}  // extern "C"
