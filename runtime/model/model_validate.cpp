// model_validate.cpp — see model_validate.h. The order of the checks is part
// of the contract the malformed-model tests pin: container (truncated,
// identifier, verifier, version), then arch, MoE, specials, tokenizer,
// vocabulary mask, tensors. Every size the runtime will index is computed
// here with overflow-checked arithmetic, so model_open can trust the file.
#include "model/model_validate.h"

#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstring>

#include "model/model.h"
#include "ops/ops.h"

namespace amxqa {

void CheckSink::fail(amxqa_status status, const char* fmt, ...) {
  char msg[256];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (failures_++ == 0) {
    first_ = status;
    std::memcpy(first_message_, msg, sizeof msg);
  }
  if (report_) report_(user_, status, msg);
}

const fb::Tensor* find_tensor(const fb::Model& model, const char* name) {
  for (const fb::Tensor* t : *model.tensors())
    if (std::strcmp(t->name()->c_str(), name) == 0) return t;
  return nullptr;
}

namespace {

using ull = unsigned long long;

// MODEL.md's fixed token layout.
constexpr uint32_t kByteBase = 5, kMergeBase = 261;
constexpr uint32_t kSpecialIds[5] = {0, 1, 2, 3, 4};  // pad bos eot ans abstain
constexpr uint32_t kEotId = 2, kAbstainId = 4;

bool in_range(CheckSink& s, amxqa_status st, const char* field, uint64_t v, uint64_t lo,
              uint64_t hi) {
  if (v >= lo && v <= hi) return true;
  s.fail(st, "%s: %llu is not in [%llu, %llu]", field, ull(v), ull(lo), ull(hi));
  return false;
}

// ---- container -------------------------------------------------------------

const fb::Model* check_container(const uint8_t* data, size_t len, CheckSink& s) {
  if (len < 8) {
    s.fail(AMXQA_ERR_MODEL_TRUNCATED, "file: %zu bytes, a model needs at least 8", len);
    return nullptr;
  }
  if (!flatbuffers::BufferHasIdentifier(data, fb::ModelIdentifier())) {
    s.fail(AMXQA_ERR_MODEL_IDENTIFIER, "file_identifier: bytes 4..8 are not \"%s\"",
           fb::ModelIdentifier());
    return nullptr;
  }
  // The verifier asserts on buffers of 2 GiB or more; refuse them first.
  if (len >= FLATBUFFERS_MAX_BUFFER_SIZE) {
    s.fail(AMXQA_ERR_MODEL_CORRUPT, "file: %zu bytes exceeds the FlatBuffers limit", len);
    return nullptr;
  }
  flatbuffers::Verifier::Options opts;
  opts.max_depth = 16;
  opts.max_tables = 1000000;
  opts.check_alignment = true;
  opts.check_nested_flatbuffers = true;
  flatbuffers::Verifier verifier(data, len, opts);
  if (!fb::VerifyModelBuffer(verifier)) {
    s.fail(AMXQA_ERR_MODEL_CORRUPT, "file: the FlatBuffers verifier rejected the %zu-byte buffer",
           len);
    return nullptr;
  }
  const fb::Model* m = fb::GetModel(data);
  if (m->format_version() < 1 || m->format_version() > AMXQA_FORMAT_VERSION) {
    s.fail(AMXQA_ERR_MODEL_VERSION, "format_version: %u is not in [1, %u]", m->format_version(),
           unsigned(AMXQA_FORMAT_VERSION));
    return nullptr;
  }
  return m;
}

// ---- architecture ----------------------------------------------------------

bool check_arch(const fb::Arch& a, CheckSink& s) {
  const auto E = AMXQA_ERR_MODEL_ARCH;
  bool ok = true;
  ok &= in_range(s, E, "arch.d_model", a.d_model(), 1, kMaxDModel);
  ok &= in_range(s, E, "arch.n_layers", a.n_layers(), 1, kMaxLayers);
  ok &= in_range(s, E, "arch.n_heads", a.n_heads(), 1, kMaxHeads);
  const bool kv_ok = in_range(s, E, "arch.n_kv_heads", a.n_kv_heads(), 1, kMaxHeads);
  ok &= kv_ok;
  ok &= in_range(s, E, "arch.head_dim", a.head_dim(), 1, kMaxHeadDim);
  ok &= in_range(s, E, "arch.window", a.window(), 1, kMaxWindow);
  ok &= in_range(s, E, "arch.lin_state", a.lin_state(), 1, kMaxHeadDim);
  ok &= in_range(s, E, "arch.d_ff", a.d_ff(), 1, kMaxDff);
  ok &= in_range(s, E, "arch.vocab_size", a.vocab_size(), kMergeBase, kMaxVocab);
  if (kv_ok && a.n_heads() % a.n_kv_heads() != 0) {
    s.fail(E, "arch.n_kv_heads: %u does not divide arch.n_heads = %u", a.n_kv_heads(),
           a.n_heads());
    ok = false;
  }
  if (a.head_dim() % 2 != 0) {
    s.fail(E, "arch.head_dim: %u is odd (RoPE rotates pairs)", a.head_dim());
    ok = false;
  }
  if (a.end_pointer() && !a.start_pointer()) {
    s.fail(E, "arch.end_pointer: set without arch.start_pointer (MODEL.md \"End pointer\")");
    ok = false;
  }
  if (a.passage_reader() && !a.start_pointer())
    s.fail(E, "arch.passage_reader: set without arch.start_pointer (MODEL.md \"Passage reader\")");
  if (a.no_answer_head() && !a.start_pointer()) {
    s.fail(E, "arch.no_answer_head: set without arch.start_pointer (MODEL.md \"No-answer head\")");
    ok = false;
  }
  const auto* kinds = a.layer_kinds();
  if (!kinds) {
    s.fail(E, "arch.layer_kinds: missing");
    ok = false;
  } else if (kinds->size() != a.n_layers()) {
    s.fail(E, "arch.layer_kinds: length %u != arch.n_layers = %u", kinds->size(), a.n_layers());
    ok = false;
  } else {
    for (uint32_t i = 0; i < kinds->size(); ++i) {
      const unsigned k = static_cast<unsigned>(kinds->Get(i));
      if (k > static_cast<unsigned>(fb::LayerKind::MAX)) {
        s.fail(E, "arch.layer_kinds[%u]: %u is not swa (0) or lin (1)", i, k);
        ok = false;
        break;
      }
    }
  }
  if (!(std::isfinite(a.rope_theta()) && a.rope_theta() > 0.f)) {
    s.fail(E, "arch.rope_theta: %g is not a positive finite number", double(a.rope_theta()));
    ok = false;
  }
  if (!(std::isfinite(a.norm_eps()) && a.norm_eps() > 0.f)) {
    s.fail(E, "arch.norm_eps: %g is not a positive finite number", double(a.norm_eps()));
    ok = false;
  }
  return ok;
}

bool check_moe(const fb::Arch& a, CheckSink& s) {
  const auto E = AMXQA_ERR_MODEL_MOE;
  const auto* layers = a.moe_layers();
  const uint32_t n_moe = layers ? layers->size() : 0;
  if (!in_range(s, E, "arch.moe_experts", a.moe_experts(), 0, kMaxExperts)) return false;
  if (a.moe_experts() == 0) {
    if (n_moe == 0) return true;
    s.fail(E, "arch.moe_layers: %u layers listed but arch.moe_experts = 0", n_moe);
    return false;
  }
  bool ok = true;
  const uint32_t max_k = a.moe_experts() < kMaxTopK ? a.moe_experts() : kMaxTopK;
  ok &= in_range(s, E, "arch.moe_top_k", a.moe_top_k(), 1, max_k);
  ok &= in_range(s, E, "arch.moe_d_ff", a.moe_d_ff(), 1, kMaxDff);
  ok &= in_range(s, E, "arch.moe_route_block", a.moe_route_block(), 1, UINT32_MAX);
  ok &= in_range(s, E, "arch.moe_route_window", a.moe_route_window(), 1, UINT32_MAX);
  for (uint32_t i = 0; i < n_moe; ++i) {
    const uint32_t l = layers->Get(i);
    if (l >= a.n_layers()) {
      s.fail(E, "arch.moe_layers[%u]: %u is not a layer (arch.n_layers = %u)", i, l, a.n_layers());
      return false;
    }
    if (i > 0 && l <= layers->Get(i - 1)) {
      s.fail(E, "arch.moe_layers[%u]: %u does not follow %u (must be strictly increasing)", i, l,
             layers->Get(i - 1));
      return false;
    }
  }
  return ok;
}

// ---- specials, tokenizer, vocabulary mask ----------------------------------

bool check_specials(const fb::Specials& sp, uint32_t vocab, CheckSink& s) {
  const char* names[5] = {"pad", "bos", "eot", "ans", "abstain"};
  const uint32_t got[5] = {sp.pad(), sp.bos(), sp.eot(), sp.ans(), sp.abstain()};
  bool ok = true;
  for (int i = 0; i < 5; ++i) {
    if (got[i] != kSpecialIds[i]) {
      s.fail(AMXQA_ERR_MODEL_SPECIALS, "specials.%s: %u is not %u (MODEL.md fixed id)", names[i],
             got[i], kSpecialIds[i]);
      ok = false;
    } else if (got[i] >= vocab) {
      s.fail(AMXQA_ERR_MODEL_SPECIALS, "specials.%s: %u is not below arch.vocab_size = %u",
             names[i], got[i], vocab);
      ok = false;
    }
  }
  return ok;
}

bool check_merges(const fb::Tokenizer& t, CheckSink& s) {
  const auto E = AMXQA_ERR_MODEL_TOKENIZER;
  const auto* merges = t.merges();
  const uint32_t n = merges ? merges->size() : 0;
  for (uint32_t r = 0; r < n; ++r) {
    // Each side is a byte or an earlier merge: no cycles, no forward references.
    const fb::Merge* m = merges->Get(r);
    const uint64_t limit = uint64_t(kMergeBase) + r;
    if (m->left() < kByteBase || m->left() >= limit || m->right() < kByteBase ||
        m->right() >= limit) {
      s.fail(E, "tokenizer.merges[%u]: (%u, %u) is not a pair of ids in [%u, %llu)", r, m->left(),
             m->right(), kByteBase, ull(limit));
      return false;
    }
  }
  bool ok = true;
  const auto* index = t.merge_index();
  const uint32_t n_index = index ? index->size() : 0;
  if (n_index != n) {
    s.fail(E, "tokenizer.merge_index: length %u != %u merges", n_index, n);
    return false;
  }
  for (uint32_t i = 0; i < n; ++i) {
    const uint32_t r = index->Get(i);
    if (r >= n) {
      s.fail(E, "tokenizer.merge_index[%u]: rank %u is not below %u merges", i, r, n);
      return false;
    }
    if (i > 0) {
      // Strictly increasing pairs: sorted for binary search, and (with every
      // rank < n) a permutation, since distinct pairs have distinct ranks.
      const fb::Merge* a = merges->Get(index->Get(i - 1));
      const fb::Merge* b = merges->Get(r);
      const bool less = a->left() < b->left() || (a->left() == b->left() && a->right() < b->right());
      if (!less) {
        s.fail(E, "tokenizer.merge_index[%u]: pair (%u, %u) does not sort after (%u, %u)", i,
               b->left(), b->right(), a->left(), a->right());
        ok = false;
        break;
      }
    }
  }
  return ok;
}

bool check_pieces(const fb::Tokenizer& t, uint32_t vocab, bool merges_ok, CheckSink& s) {
  const auto E = AMXQA_ERR_MODEL_TOKENIZER;
  const auto* offs = t.piece_offsets();
  const auto* bytes = t.piece_bytes();
  const uint32_t n_bytes = bytes ? bytes->size() : 0;
  if (!offs || uint64_t(offs->size()) != uint64_t(vocab) + 1) {
    s.fail(E, "tokenizer.piece_offsets: length %u != arch.vocab_size + 1 = %llu",
           offs ? offs->size() : 0u, ull(vocab) + 1);
    return false;
  }
  if (offs->Get(0) != 0) {
    s.fail(E, "tokenizer.piece_offsets[0]: %u is not 0", offs->Get(0));
    return false;
  }
  uint32_t longest = 0;
  for (uint32_t i = 0; i < vocab; ++i) {
    const uint32_t a = offs->Get(i), b = offs->Get(i + 1);
    if (b < a || b > n_bytes) {
      s.fail(E, "tokenizer.piece_offsets[%u]: %u is not in [%u, %u] (piece_bytes length)", i + 1,
             b, a, n_bytes);
      return false;
    }
    if (b - a > longest) longest = b - a;
  }
  bool ok = true;
  // An encoded token never spans two pre-tokenizer chunks, so no piece the
  // runtime decodes is longer than a chunk.
  if (!in_range(s, E, "tokenizer.max_piece_len", t.max_piece_len(), 1, kMaxChunkLen)) {
    ok = false;
  } else if (longest > t.max_piece_len()) {
    s.fail(E, "tokenizer.max_piece_len: %u is shorter than the longest piece (%u bytes)",
           t.max_piece_len(), longest);
    ok = false;
  }
  const uint8_t* p = bytes ? bytes->data() : nullptr;
  for (uint32_t b = 0; b < 256 && kByteBase + b < vocab; ++b) {
    const uint32_t id = kByteBase + b;
    if (offs->Get(id + 1) - offs->Get(id) != 1 || p[offs->Get(id)] != b) {
      s.fail(E, "tokenizer.piece_bytes: id %u is not the single byte 0x%02x", id, b);
      return false;
    }
  }
  if (!merges_ok || !t.merges()) return ok;
  for (uint32_t r = 0; r < t.merges()->size() && kMergeBase + r < vocab; ++r) {
    const fb::Merge* m = t.merges()->Get(r);
    const uint32_t id = kMergeBase + r;
    const uint32_t la = offs->Get(m->left()), ln = offs->Get(m->left() + 1) - la;
    const uint32_t ra = offs->Get(m->right()), rn = offs->Get(m->right() + 1) - ra;
    const uint32_t a = offs->Get(id), n = offs->Get(id + 1) - a;
    if (uint64_t(ln) + rn != n || std::memcmp(p + a, p + la, ln) != 0 ||
        std::memcmp(p + a + ln, p + ra, rn) != 0) {
      s.fail(E, "tokenizer.piece_bytes: id %u is not the bytes of %u followed by %u", id,
             m->left(), m->right());
      return false;
    }
  }
  return ok;
}

bool check_tokenizer(const fb::Tokenizer& t, uint32_t vocab, CheckSink& s) {
  const auto E = AMXQA_ERR_MODEL_TOKENIZER;
  if (t.byte_base() != kByteBase || t.merge_base() != kMergeBase) {
    s.fail(E, "tokenizer.byte_base/merge_base: %u/%u are not %u/%u (MODEL.md)", t.byte_base(),
           t.merge_base(), kByteBase, kMergeBase);
    return false;
  }
  bool ok = true;
  const uint32_t n = t.merges() ? t.merges()->size() : 0;
  if (uint64_t(kMergeBase) + n != vocab) {
    s.fail(E, "tokenizer.merges: %u + %u merges != arch.vocab_size = %u", kMergeBase, n, vocab);
    ok = false;
  }
  const bool merges_ok = check_merges(t, s);
  ok &= merges_ok;
  ok &= check_pieces(t, vocab, merges_ok && ok, s);
  ok &= in_range(s, E, "tokenizer.max_chunk_len", t.max_chunk_len(), 1, kMaxChunkLen);
  return ok;
}

bool check_vocab_mask(const fb::Model& m, uint32_t vocab, CheckSink& s) {
  const auto E = AMXQA_ERR_MODEL_VOCAB_MASK;
  const auto* mask = m.vocab_mask();
  const uint64_t want = (uint64_t(vocab) + 7) / 8;
  if (!mask || mask->size() != want) {
    s.fail(E, "vocab_mask: length %u != ceil(arch.vocab_size / 8) = %llu",
           mask ? mask->size() : 0u, ull(want));
    return false;
  }
  bool ok = true;
  if (vocab % 8 != 0 && (mask->Get(uint32_t(want) - 1) >> (vocab % 8)) != 0) {
    s.fail(E, "vocab_mask: bits set past arch.vocab_size = %u", vocab);
    ok = false;
  }
  if (vocab <= kAbstainId) return ok;  // arch.vocab_size already failed
  // Decoding must always be able to stop and to abstain (MODEL.md).
  for (uint32_t id : {kEotId, kAbstainId}) {
    if (!((mask->Get(id >> 3) >> (id & 7)) & 1u)) {
      s.fail(E, "vocab_mask: bit %u (%s) is clear; it must always be allowed", id,
             id == kEotId ? "EOT" : "ABSTAIN");
      ok = false;
    }
  }
  return ok;
}

// ---- tensors ---------------------------------------------------------------

// One tensor MODEL.md requires for this architecture.
struct TensorRule {
  char name[24];
  uint32_t shape[3];
  uint32_t rank;
  bool f32_only;  // norm gains, wa, ba, router
};

constexpr uint32_t kMaxRules = 7 + kMaxLayers * 11;  // + no_answer_w and 4 reader_w*

uint32_t add_rule(TensorRule* rules, uint32_t n, uint32_t layer, const char* name,
                  bool f32_only, uint32_t d0, uint32_t d1 = 0, uint32_t d2 = 0) {
  TensorRule& r = rules[n];
  if (layer == UINT32_MAX)
    std::snprintf(r.name, sizeof r.name, "%s", name);
  else
    std::snprintf(r.name, sizeof r.name, "l%u.%s", layer, name);
  r.shape[0] = d0;
  r.shape[1] = d1;
  r.shape[2] = d2;
  r.rank = d2 ? 3 : d1 ? 2 : 1;
  r.f32_only = f32_only;
  return n + 1;
}

// The MODEL.md weight table for a validated architecture.
uint32_t required_tensors(const fb::Arch& a, TensorRule* rules) {
  const uint32_t d = a.d_model(), H = a.n_heads(), G = a.n_kv_heads(), hd = a.head_dim();
  const uint32_t dk = a.lin_state(), V = a.vocab_size();
  const uint32_t none = UINT32_MAX;
  uint32_t n = 0;
  n = add_rule(rules, n, none, "tok_emb", false, V, d);
  n = add_rule(rules, n, none, "final_norm", true, d);
  if (a.no_answer_head()) n = add_rule(rules, n, none, "no_answer_w", true, d, d);
  if (a.passage_reader()) {  // MODEL.md "Passage reader": matrices, kReaderHeads heads of head_dim
    const uint32_t r = ops::kReaderHeads * hd;
    n = add_rule(rules, n, none, "reader_wq", false, r, d);
    n = add_rule(rules, n, none, "reader_wk", false, r, d);
    n = add_rule(rules, n, none, "reader_wv", false, r, d);
    n = add_rule(rules, n, none, "reader_wo", false, d, r);
  }
  const auto* moe = a.moe_layers();
  for (uint32_t l = 0; l < a.n_layers(); ++l) {
    const bool lin = a.layer_kinds()->Get(l) == fb::LayerKind::lin;
    bool is_moe = false;
    if (moe)
      for (uint32_t x : *moe) is_moe |= x == l;
    n = add_rule(rules, n, l, "attn_norm", true, d);
    n = add_rule(rules, n, l, "ffn_norm", true, d);
    n = add_rule(rules, n, l, "wq", false, H * (lin ? dk : hd), d);
    n = add_rule(rules, n, l, "wk", false, (lin ? H * dk : G * hd), d);
    n = add_rule(rules, n, l, "wv", false, (lin ? H : G) * hd, d);
    n = add_rule(rules, n, l, "wo", false, d, H * hd);
    if (lin) {
      n = add_rule(rules, n, l, "wa", true, H, d);
      n = add_rule(rules, n, l, "ba", true, H);
    }
    if (is_moe) {
      const uint32_t E = a.moe_experts(), f = a.moe_d_ff();
      n = add_rule(rules, n, l, "router", true, E, d);
      n = add_rule(rules, n, l, "moe_w1", false, E, f, d);
      n = add_rule(rules, n, l, "moe_w2", false, E, d, f);
    } else {
      n = add_rule(rules, n, l, "w1", false, a.d_ff(), d);
      n = add_rule(rules, n, l, "w2", false, d, a.d_ff());
    }
  }
  return n;
}

const char* dtype_name(unsigned d) {
  return d == 0 ? "f32" : d == 1 ? "bf16" : d == 2 ? "i8" : "unknown";
}

void format_shape(char* out, size_t cap, const flatbuffers::Vector<uint32_t>* shape) {
  if (!shape) {
    std::snprintf(out, cap, "(none)");
    return;
  }
  int w = std::snprintf(out, cap, "[");
  for (uint32_t i = 0; i < shape->size() && i < 4 && w > 0 && size_t(w) < cap; ++i)
    w += std::snprintf(out + w, cap - w, "%s%u", i ? ", " : "", shape->Get(i));
  if (w > 0 && size_t(w) < cap)
    std::snprintf(out + w, cap - w, "%s]", shape->size() > 4 ? ", ..." : "");
}

// Checks one tensor against its rule; stops at the tensor's first problem.
void check_tensor(const TensorRule& r, const fb::Tensor& t, const uint8_t* blob, uint64_t blob_size,
                  CheckSink& s) {
  const char* nm = r.name;
  const auto* shape = t.shape();
  bool shape_ok = shape && shape->size() == r.rank;
  for (uint32_t i = 0; shape_ok && i < r.rank; ++i) shape_ok = shape->Get(i) == r.shape[i];
  if (!shape_ok) {
    char got[64], want[64];
    format_shape(got, sizeof got, shape);
    if (r.rank == 1)
      std::snprintf(want, sizeof want, "[%u]", r.shape[0]);
    else if (r.rank == 2)
      std::snprintf(want, sizeof want, "[%u, %u]", r.shape[0], r.shape[1]);
    else
      std::snprintf(want, sizeof want, "[%u, %u, %u]", r.shape[0], r.shape[1], r.shape[2]);
    s.fail(AMXQA_ERR_MODEL_TENSOR, "tensor %s: shape %s != expected %s", nm, got, want);
    return;
  }
  const unsigned dt = static_cast<unsigned>(t.dtype());
  if (dt > static_cast<unsigned>(fb::DType::MAX) || (r.f32_only && dt != 0)) {
    s.fail(AMXQA_ERR_MODEL_TENSOR, "tensor %s: dtype %s (%u) is not allowed%s", nm,
           dtype_name(dt), dt, r.f32_only ? " (must be f32)" : "");
    return;
  }
  const unsigned lay = static_cast<unsigned>(t.layout());
  const uint32_t cols = r.shape[r.rank - 1];
  const char* bad_layout = nullptr;
  if (lay > static_cast<unsigned>(fb::Layout::MAX))
    bad_layout = "unknown layout";
  else if (lay != 0 && (r.f32_only || r.rank == 1))
    bad_layout = "vectors and f32-only tensors are plain";
  else if (lay == 1 && (dt != 1 || cols % 2 != 0))
    bad_layout = "vnni2 needs bf16 and an even number of columns";
  else if (lay == 2 && (dt != 2 || cols % 4 != 0))
    bad_layout = "vnni4 needs i8 and a multiple of 4 columns";
  if (bad_layout) {
    s.fail(AMXQA_ERR_MODEL_LAYOUT, "tensor %s: layout %u with dtype %s, %u columns: %s", nm, lay,
           dtype_name(dt), cols, bad_layout);
    return;
  }
  uint64_t elems = 1, bytes = 0;
  for (uint32_t i = 0; i < r.rank; ++i) {
    if (__builtin_mul_overflow(elems, uint64_t(r.shape[i]), &elems)) {
      s.fail(AMXQA_ERR_MODEL_OVERFLOW, "tensor %s: element count overflows", nm);
      return;
    }
  }
  if (__builtin_mul_overflow(elems, uint64_t(dtype_size(static_cast<DType>(dt))), &bytes)) {
    s.fail(AMXQA_ERR_MODEL_OVERFLOW, "tensor %s: byte size overflows", nm);
    return;
  }
  if (t.size() != bytes) {
    s.fail(AMXQA_ERR_MODEL_TENSOR, "tensor %s: size %llu != %llu (product(shape) * sizeof(%s))",
           nm, ull(t.size()), ull(bytes), dtype_name(dt));
    return;
  }
  if (t.offset() % 64 != 0) {
    s.fail(AMXQA_ERR_MODEL_ALIGNMENT, "tensor %s: offset %llu is not a multiple of 64", nm,
           ull(t.offset()));
    return;
  }
  uint64_t end = 0;
  if (__builtin_add_overflow(t.offset(), t.size(), &end)) {
    s.fail(AMXQA_ERR_MODEL_OVERFLOW, "tensor %s: offset %llu + size %llu overflows", nm,
           ull(t.offset()), ull(t.size()));
    return;
  }
  if (end > blob_size) {
    s.fail(AMXQA_ERR_MODEL_TENSOR, "tensor %s: bytes [%llu, %llu) lie outside the %llu-byte weights",
           nm, ull(t.offset()), ull(end), ull(blob_size));
    return;
  }
  const unsigned bits = t.weight_bits();
  if (bits != 8 && !(dt == 2 && bits == 7)) {
    s.fail(AMXQA_ERR_MODEL_TENSOR, "tensor %s: weight_bits %u with dtype %s (i8 takes 7 or 8, others 8)",
           nm, bits, dtype_name(dt));
    return;
  }
  if (dt != 2) return;
  // i8: one f32 scale per row (product(shape[:-1]) rows), 64-aligned like the data.
  const uint64_t rows = elems / cols;
  uint64_t scale_end = 0;
  if (t.scale_offset() % 64 != 0) {
    s.fail(AMXQA_ERR_MODEL_ALIGNMENT, "tensor %s: scale_offset %llu is not a multiple of 64", nm,
           ull(t.scale_offset()));
    return;
  }
  if (__builtin_add_overflow(t.scale_offset(), rows * 4, &scale_end)) {
    s.fail(AMXQA_ERR_MODEL_OVERFLOW, "tensor %s: scale_offset %llu + %llu scales overflows", nm,
           ull(t.scale_offset()), ull(rows));
    return;
  }
  if (scale_end > blob_size) {
    s.fail(AMXQA_ERR_MODEL_TENSOR,
           "tensor %s: scales [%llu, %llu) lie outside the %llu-byte weights", nm,
           ull(t.scale_offset()), ull(scale_end), ull(blob_size));
    return;
  }
  // 7-bit weights: AVX2's vpmaddubsw product is exact only inside [-64, 63]
  // (canonical_i8_avx2.cpp), so the promise is checked byte by byte.
  if (bits != 7) return;
  const int8_t* q = reinterpret_cast<const int8_t*>(blob + t.offset());
  for (uint64_t i = 0; i < t.size(); ++i)
    if (q[i] < -64 || q[i] > 63) {
      s.fail(AMXQA_ERR_MODEL_TENSOR,
             "tensor %s: weight_bits 7, but stored weight %llu is %d (outside [-64, 63])", nm,
             ull(i), int(q[i]));
      return;
    }
}

void check_tensors(const fb::Model& m, const uint8_t* data, CheckSink& s) {
  const auto* blob = m.weights();
  const uint64_t blob_size = blob ? blob->size() : 0;
  if (blob && (blob->data() - data) % 64 != 0) {
    s.fail(AMXQA_ERR_MODEL_ALIGNMENT, "weights: blob starts at byte %lld, not a multiple of 64",
           static_cast<long long>(blob->data() - data));
    return;
  }
  TensorRule rules[kMaxRules];
  const uint32_t n_rules = required_tensors(*m.arch(), rules);
  const auto& tensors = *m.tensors();
  if (tensors.size() > n_rules) {
    s.fail(AMXQA_ERR_MODEL_TENSOR, "tensors: %u entries, but this architecture has %u tensors",
           tensors.size(), n_rules);
    return;
  }
  uint32_t matched = 0;
  for (uint32_t i = 0; i < n_rules; ++i) {
    const fb::Tensor* found = nullptr;
    uint32_t count = 0;
    for (const fb::Tensor* t : tensors) {
      if (std::strcmp(t->name()->c_str(), rules[i].name) == 0) {
        if (!found) found = t;
        ++count;
      }
    }
    if (count == 0) {
      const bool head = std::strcmp(rules[i].name, "no_answer_w") == 0;
      const bool reader = std::strncmp(rules[i].name, "reader_w", 8) == 0;
      s.fail(AMXQA_ERR_MODEL_TENSOR, "tensor %s: missing%s", rules[i].name,
             head     ? " (arch.no_answer_head is set: MODEL.md \"No-answer head\")"
             : reader ? " (arch.passage_reader is set: MODEL.md \"Passage reader\")"
                      : "");
      continue;
    }
    matched += count;
    if (count > 1) {
      s.fail(AMXQA_ERR_MODEL_TENSOR, "tensor %s: appears %u times", rules[i].name, count);
      continue;
    }
    check_tensor(rules[i], *found, blob ? blob->data() : nullptr, blob_size, s);
  }
  if (matched == tensors.size()) return;
  for (uint32_t j = 0; j < tensors.size(); ++j) {
    const char* name = tensors.Get(j)->name()->c_str();
    bool known = false;
    for (uint32_t i = 0; i < n_rules && !known; ++i) known = std::strcmp(name, rules[i].name) == 0;
    if (!known) {
      s.fail(AMXQA_ERR_MODEL_TENSOR, "tensors[%u]: \"%.40s\" is not a tensor of this architecture",
             j, name);
      return;
    }
  }
}

// MODEL.md "No-answer decision": a calibrated threshold must be a number.
void check_calibration(const fb::Model& m, CheckSink& s) {
  const fb::Calibration* c = m.calibration();
  if (c && !std::isfinite(c->no_answer_threshold()))
    s.fail(AMXQA_ERR_MODEL_ARCH, "calibration.no_answer_threshold: %g is not finite",
           double(c->no_answer_threshold()));
}

}  // namespace

amxqa_status validate_model(const uint8_t* data, size_t len, CheckSink& s,
                            const fb::Model** root) {
  const fb::Model* m = check_container(data, len, s);
  if (!m) return s.first();
  const fb::Arch& arch = *m->arch();
  const bool arch_ok = check_arch(arch, s);
  const bool moe_ok = check_moe(arch, s);
  check_specials(*m->specials(), arch.vocab_size(), s);
  check_tokenizer(*m->tokenizer(), arch.vocab_size(), s);
  check_vocab_mask(*m, arch.vocab_size(), s);
  check_calibration(*m, s);
  // Expected shapes are only meaningful (and bounded) for a valid architecture.
  if (arch_ok && moe_ok) check_tensors(*m, data, s);
  if (s.first() == AMXQA_OK && root) *root = m;
  return s.first();
}

}  // namespace amxqa
