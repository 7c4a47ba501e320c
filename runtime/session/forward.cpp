// forward.cpp — schemas/MODEL.md "Forward pass" on the session's buffers.
// One code path serves prefill (m rows, Kernels::matmul) and decode (m = 1,
// Kernels::matvec); the differences are the GEMM entry point and how the
// swa scores are formed (block GEMMs vs one matvec per row), so incremental
// and full-sequence forwards agree to f32 summation order. The math is ops::
// (shared with the trainer), RoPE and block attention included; only the
// one-row attention of decode below restates ops::swa_attend, and says so.
#include "session/forward.h"

#include <array>
#include <cmath>
#include <cstring>

#include "amxqa_generated.h"  // fb::LayerKind
#include "ops/ops.h"

namespace amxqa {
namespace {

// Q, K and V of m rows from the same input U: in prefill one matmul_shared
// (the activations quantised once for the three int8 products).
void qkv(const Kernels& k, const LayerWeights& lw, const float* U, size_t ldu, size_t m,
         const std::array<float*, 3>& Y, const std::array<size_t, 3>& ldy) {
  const WeightView ws[3] = {lw.wq, lw.wk, lw.wv};
  if (m == 1) {
    for (size_t i = 0; i < 3; ++i) k.matvec(ws[i], U, Y[i]);
    return;
  }
  run_matmul_shared(k, ws, 3, U, ldu, m, Y.data(), ldy.data());
}

// Y = X · Wᵀ for the model's small f32 matrices (the lin decay and the MoE
// router: a few rows each) through dot_rows, whose canonical order gives every
// ISA the same bits; a table's f32 matmul sums in its own order.
void f32_rows(const Kernels& k, const float* W, uint32_t rows, uint32_t cols, const float* X,
              size_t ldx, size_t m, float* Y, size_t ldy) {
  for (size_t t = 0; t < m; ++t) {
    float* y = Y + t * ldy;
    std::memset(y, 0, rows * sizeof(float));  // dot_rows adds to y
    k.dot_rows(W, cols, rows, X + t * ldx, cols, y);
  }
}

// Element index of (r, c) in a weight's storage order.
size_t storage_index(const WeightView& w, uint32_t r, uint32_t c) {
  switch (w.layout) {
    case Layout::vnni2: return (size_t(c / 2) * w.rows + r) * 2 + (c % 2);
    case Layout::vnni4: return (size_t(c / 4) * w.rows + r) * 4 + (c % 4);
    case Layout::plain: break;
  }
  return size_t(r) * w.cols + c;
}

// x_0 = tok_emb[id], dequantised to f32. The common layouts read their row
// directly; storage_index serves the rest.
void embed_row(const WeightView& w, uint32_t id, float* out) {
  const float scale = (w.dtype == DType::i8 && w.scales) ? w.scales[id] : 1.f;
  if (w.dtype == DType::i8 && w.layout == Layout::vnni4) {  // 4 columns per row group
    const int8_t* d = static_cast<const int8_t*>(w.data) + size_t(id) * 4;
    for (uint32_t c = 0; c < w.cols; c += 4, d += size_t(w.rows) * 4)
      for (uint32_t j = 0; j < 4; ++j) out[c + j] = scale * float(d[j]);
    return;
  }
  for (uint32_t c = 0; c < w.cols; ++c) {
    const size_t i = storage_index(w, id, c);
    switch (w.dtype) {
      case DType::f32: out[c] = static_cast<const float*>(w.data)[i]; break;
      case DType::bf16: out[c] = bf16_to_f32(static_cast<const uint16_t*>(w.data)[i]); break;
      case DType::i8: out[c] = scale * float(static_cast<const int8_t*>(w.data)[i]); break;
    }
  }
}

void add_rows(float* x, const float* y, size_t m, size_t d, float g) {
  for (size_t i = 0; i < m * d; ++i) x[i] += g * y[i];
}

void norm_rows(const float* x, const float* gain, size_t m, size_t d, float eps, float* y) {
  ops::rmsnorm_rows(x, d, gain, m, d, eps, y, d);
}

void relu2_rows(float* h, size_t m, size_t n, size_t ld) {
  for (size_t t = 0; t < m; ++t) ops::relu2(h + t * ld, n, h + t * ld);
}

// Makes room for m more positions: when the buffer would overflow, only the
// last W − 1 positions (all a new query can still see) are moved to the front.
void kv_reserve(LayerState& st, const Dims& d, uint32_t m) {
  if (st.kv_len + m <= d.kv_cap) return;
  const uint32_t keep = st.kv_len < d.W - 1 ? st.kv_len : d.W - 1;
  const uint32_t drop = st.kv_len - keep;
  const size_t row = size_t(d.G) * d.hd;
  std::memmove(st.kv_k, st.kv_k + drop * row, keep * row * sizeof(float));
  std::memmove(st.kv_v, st.kv_v + drop * row, keep * row * sizeof(float));
  st.kv_base += drop;
  st.kv_len = keep;
}

// LayerWeights::kind holds the schema's LayerKind.
bool is_swa(const LayerWeights& lw) { return lw.kind == static_cast<uint8_t>(fb::LayerKind::swa); }

// RoPE's cos/sin (ops::rope_table) for the block's positions, computed once
// per block and shared by every head and every swa layer.
struct RopeTable {
  float cs[kPrefillRows * kMaxHeadDim];
  bool ready = false;
};

}  // namespace

void gemm(const Kernels& k, const WeightView& w, const float* X, size_t ldx, size_t m, float* Y,
          size_t ldy) {
  if (m == 1)
    k.matvec(w, X, Y);
  else
    k.matmul(w, X, ldx, m, Y, ldy);
}

namespace {

// One query against n keys (ops::swa_attend's math). The scores are the
// table's dot_rows (keys at any stride) and the softmax the table's: both in
// the canonical order, so every ISA gets the same bits; the weighted sum of
// values is a plain loop the compiler vectorises.
void attend_row(const Kernels& k, const float* q, const float* K, const float* V, size_t stride,
                size_t n, size_t hd, float* probs, float* out) {
  for (size_t j = 0; j < n; ++j) probs[j] = 0.f;
  k.dot_rows(K, stride, n, q, hd, probs);
  const float scale = 1.0f / std::sqrt(static_cast<float>(hd));
  for (size_t j = 0; j < n; ++j) probs[j] *= scale;
  k.softmax(probs, n);
  for (size_t i = 0; i < hd; ++i) out[i] = 0.f;
  for (size_t j = 0; j < n; ++j) {
    const float p = probs[j];
    const float* v = V + j * stride;
    for (size_t i = 0; i < hd; ++i) out[i] += p * v[i];
  }
}

// Softmax attention of the block's m queries of each head against the keys
// of its KV head: ops::swa_block (two GEMMs over the union of the rows'
// windows) on the session's kernel table. Rows are taken in chunks whose
// score matrix fits `scratch` (cap floats). A single row (the decode step,
// or a window too long for the scratch) goes through attend_row, which needs
// no packing.
void swa_heads(amxqa_session* s, LayerState& st, uint32_t m, float* scratch, size_t cap) {
  const Kernels& k = *s->kernels;
  const Dims& d = s->dim;
  BlockBuffers& b = s->blk;
  const size_t kvw = size_t(d.G) * d.hd, aw = size_t(d.H) * d.hd;
  // d.G >= 1 and H % G == 0, so group >= 1: amxqa_model_open validates both.
  // NOLINTNEXTLINE(clang-analyzer-core.DivideZero)
  const uint32_t group = d.H / d.G;
  const ops::AttendKernels attend{k.attend_gemm, k.softmax};
  for (uint32_t t0 = 0; t0 < m;) {
    const uint32_t lo0 = static_cast<uint32_t>(ops::swa_window_lo(s->pos + t0, d.W));
    // Rows t0..t1-1 see keys [lo0, pos(t1-1)]; grow the chunk while S fits.
    uint32_t t1 = t0;
    while (t1 < m && size_t(t1 + 1 - t0) * (s->pos + t1 - lo0 + 1) <= cap) ++t1;
    if (t1 <= t0 + 1) {  // one row (decode), or a window too long for the scratch
      const uint32_t pos = s->pos + t0;
      const size_t first = lo0 - st.kv_base, n = pos - lo0 + 1;
      for (uint32_t h = 0; h < d.H; ++h)
        // NOLINTNEXTLINE(clang-analyzer-core.DivideZero): group >= 1 (see above).
        attend_row(k, b.q + t0 * d.qkv_w + h * d.hd, st.kv_k + first * kvw + (h / group) * d.hd,
                   st.kv_v + first * kvw + (h / group) * d.hd, kvw, n, d.hd, b.probs,
                   b.att + t0 * aw + h * d.hd);
      ++t0;
      continue;
    }
    const uint32_t rows = t1 - t0;
    const size_t n = s->pos + t1 - 1 - lo0 + 1, first = lo0 - st.kv_base;
    for (uint32_t h = 0; h < d.H; ++h) {
      const size_t g = h / group;
      ops::SwaBlock blk;
      blk.q = b.q + size_t(t0) * d.qkv_w + h * d.hd;
      blk.ldq = d.qkv_w;
      blk.k = st.kv_k + first * kvw + g * d.hd;
      blk.v = st.kv_v + first * kvw + g * d.hd;
      blk.ldkv = kvw;
      blk.p0 = s->pos + t0;
      blk.rows = rows;
      blk.lo = lo0;
      blk.window = d.W;
      blk.hd = d.hd;
      blk.probs = scratch;
      blk.ldp = n;
      blk.out = b.att + size_t(t0) * aw + h * d.hd;
      blk.ldo = aw;
      ops::swa_block(attend, blk);
    }
    t0 = t1;
  }
}

void swa_mixer(amxqa_session* s, const LayerWeights& lw, LayerState& st, uint32_t m,
               RopeTable& rope) {
  const Kernels& k = *s->kernels;
  const Dims& d = s->dim;
  BlockBuffers& b = s->blk;
  const size_t kvw = size_t(d.G) * d.hd, aw = size_t(d.H) * d.hd;
  kv_reserve(st, d, m);
  float* K = st.kv_k + size_t(st.kv_len) * kvw;
  float* V = st.kv_v + size_t(st.kv_len) * kvw;
  qkv(k, lw, b.u, d.d, m, {b.q, K, V}, {d.qkv_w, kvw, kvw});  // K/V straight into the window
  if (!rope.ready) {
    ops::rope_table(s->pos, m, d.hd, s->model->rope_theta, rope.cs);
    rope.ready = true;
  }
  for (uint32_t t = 0; t < m; ++t) {
    ops::rope_apply(b.q + t * d.qkv_w, d.H, d.hd, rope.cs + size_t(t) * d.hd);
    ops::rope_apply(K + t * kvw, d.G, d.hd, rope.cs + size_t(t) * d.hd);
  }
  st.kv_len += m;
  // The FFN hidden buffer is free until the FFN: it holds the scores.
  swa_heads(s, st, m, b.hid, size_t(kPrefillRows) * d.ff_w);
  gemm(k, lw.wo, b.att, aw, m, b.tmp, d.d);
}

void lin_mixer(amxqa_session* s, const LayerWeights& lw, LayerState& st, uint32_t m) {
  const Kernels& k = *s->kernels;
  const Dims& d = s->dim;
  BlockBuffers& b = s->blk;
  const float eps = s->model->norm_eps;
  const size_t aw = size_t(d.H) * d.hd;
  qkv(k, lw, b.u, d.d, m, {b.q, b.k, b.v}, {d.qkv_w, d.qkv_w, d.qkv_w});
  f32_rows(k, lw.wa, d.H, d.d, b.u, d.d, m, b.z, d.H);
  // The recurrence is sequential in t; the GEMMs around it are not.
  for (uint32_t t = 0; t < m; ++t) {
    for (uint32_t h = 0; h < d.H; ++h) {
      const float a = ops::lin_decay(b.z[t * d.H + h] + lw.ba[h]);
      float* o = b.att + t * aw + h * d.hd;
      ops::lin_step(st.lin_S + size_t(h) * d.dk * d.hd, b.q + t * d.qkv_w + h * d.dk,
                    b.k + t * d.qkv_w + h * d.dk, b.v + t * d.qkv_w + h * d.hd, a, d.dk, d.hd, o);
    }
    float* o = b.att + t * aw;  // each head's output, RMS-normalised without gain
    ops::rmsnorm_rows(o, d.hd, nullptr, d.H, d.hd, eps, o, d.hd);
  }
  gemm(k, lw.wo, b.att, aw, m, b.tmp, d.d);
}

void dense_ffn(amxqa_session* s, const LayerWeights& lw, uint32_t m) {
  const Kernels& k = *s->kernels;
  const Dims& d = s->dim;
  BlockBuffers& b = s->blk;
  const uint32_t f = s->model->d_ff;
  gemm(k, lw.w1, b.u, d.d, m, b.hid, d.ff_w);
  relu2_rows(b.hid, m, f, d.ff_w);
  gemm(k, lw.w2, b.hid, d.ff_w, m, b.tmp, d.d);
  add_rows(b.x, b.tmp, m, d.d, 1.f);
}

// Routing decision of the block starting at position `start`, from the
// windowed mean of the MoE inputs in the ring (which already holds `start`).
void route(amxqa_session* s, const LayerWeights& lw, LayerState& st, uint32_t start) {
  const amxqa_model& md = *s->model;
  const Dims& d = s->dim;
  BlockBuffers& b = s->blk;
  const uint32_t R = md.moe_route_window;
  const uint32_t count = start + 1 < R ? start + 1 : R;
  std::memset(b.stat, 0, d.d * sizeof(float));
  for (uint32_t p = start + 1 - count; p <= start; ++p) {  // oldest first: a fixed order
    const float* row = st.moe_ring + size_t(p % R) * d.d;
    for (uint32_t i = 0; i < d.d; ++i) b.stat[i] += row[i];
  }
  for (uint32_t i = 0; i < d.d; ++i) b.stat[i] /= float(count);
  f32_rows(*s->kernels, lw.router, md.moe_experts, d.d, b.stat, d.d, 1, b.router, md.moe_experts);
  ops::moe_route(b.router, md.moe_experts, md.moe_top_k, st.route_idx, st.route_gate);
}

void push_ring(const amxqa_model& md, LayerState& st, const float* v, uint32_t pos, uint32_t d) {
  std::memcpy(st.moe_ring + size_t(pos % md.moe_route_window) * d, v, d * sizeof(float));
}

// The block's rows are cut at routing-block boundaries; each segment runs the
// k chosen experts as GEMMs over all its rows.
void moe_ffn(amxqa_session* s, const LayerWeights& lw, LayerState& st, uint32_t m) {
  const amxqa_model& md = *s->model;
  const Kernels& k = *s->kernels;
  const Dims& d = s->dim;
  BlockBuffers& b = s->blk;
  const uint32_t B = md.moe_route_block, f = md.moe_d_ff;
  uint32_t t0 = 0;
  while (t0 < m) {
    const uint32_t pos0 = s->pos + t0;
    const uint32_t left = B - pos0 % B;
    const uint32_t t1 = m - t0 < left ? m : t0 + left;
    push_ring(md, st, b.u + size_t(t0) * d.d, pos0, d.d);
    if (pos0 % B == 0) route(s, lw, st, pos0);
    for (uint32_t t = t0 + 1; t < t1; ++t) push_ring(md, st, b.u + size_t(t) * d.d, s->pos + t, d.d);
    const uint32_t ms = t1 - t0;
    for (uint32_t j = 0; j < md.moe_top_k; ++j) {
      const uint32_t e = st.route_idx[j];
      gemm(k, expert_view(lw.moe_w1, e, f), b.u + size_t(t0) * d.d, d.d, ms, b.hid, d.ff_w);
      relu2_rows(b.hid, ms, f, d.ff_w);
      gemm(k, expert_view(lw.moe_w2, e, d.d), b.hid, d.ff_w, ms, b.tmp, d.d);
      add_rows(b.x + size_t(t0) * d.d, b.tmp, ms, d.d, st.route_gate[j]);
    }
    t0 = t1;
  }
}

}  // namespace

void forward_reset(amxqa_session* s) {
  const Dims& d = s->dim;
  s->pos = 0;
  for (uint32_t l = 0; l < s->model->n_layers; ++l) {
    LayerState& st = s->layers[l];
    st.kv_base = st.kv_len = 0;
    if (st.lin_S) std::memset(st.lin_S, 0, size_t(d.H) * d.dk * d.hd * sizeof(float));
  }
}

namespace {

// Copies the state of `from` that decoding at `pos` onwards can read into
// `to`: the last min(kv_len, W − 1) KV rows (to the front of to's buffers),
// the lin state, the MoE ring and the current routing.
void copy_state(const Dims& d, const amxqa_model& md, const LayerWeights& lw,
                const LayerState& from, LayerState& to) {
  if (is_swa(lw)) {
    const uint32_t keep = from.kv_len < d.W - 1 ? from.kv_len : d.W - 1;
    const size_t row = size_t(d.G) * d.hd, first = size_t(from.kv_len - keep) * row;
    std::memmove(to.kv_k, from.kv_k + first, keep * row * sizeof(float));
    std::memmove(to.kv_v, from.kv_v + first, keep * row * sizeof(float));
    to.kv_base = from.kv_base + (from.kv_len - keep);
    to.kv_len = keep;
  } else {
    std::memcpy(to.lin_S, from.lin_S, size_t(d.H) * d.dk * d.hd * sizeof(float));
  }
  if (lw.moe) {
    std::memcpy(to.moe_ring, from.moe_ring, size_t(md.moe_route_window) * d.d * sizeof(float));
    std::memcpy(to.route_idx, from.route_idx, sizeof to.route_idx);
    std::memcpy(to.route_gate, from.route_gate, sizeof to.route_gate);
  }
}

}  // namespace

void forward_save(amxqa_session* s) {
  for (uint32_t l = 0; l < s->model->n_layers; ++l)
    copy_state(s->dim, *s->model, s->model->layers[l], s->layers[l], s->snap[l]);
  s->snap_pos = s->pos;
}

void forward_restore(amxqa_session* s) {
  for (uint32_t l = 0; l < s->model->n_layers; ++l)
    copy_state(s->dim, *s->model, s->model->layers[l], s->snap[l], s->layers[l]);
  s->pos = s->snap_pos;
}

void forward_rows(amxqa_session* s, const uint32_t* ids, uint32_t m, float* all_logits,
                  const uint8_t* match) {
  const amxqa_model& md = *s->model;
  const Dims& d = s->dim;
  BlockBuffers& b = s->blk;
  for (uint32_t t = 0; t < m; ++t) embed_row(md.tok_emb, ids[t], b.x + size_t(t) * d.d);
  if (md.question_match && match) {
    embed_row(md.tok_emb, md.pad, b.xn);  // xn is free until the final norm
    for (uint32_t t = 0; t < m; ++t)
      if (match[t]) add_rows(b.x + size_t(t) * d.d, b.xn, 1, d.d, 1.f);
  }
  RopeTable rope;  // filled by the first swa layer
  for (uint32_t l = 0; l < md.n_layers; ++l) {
    const LayerWeights& lw = md.layers[l];
    LayerState& st = s->layers[l];
    norm_rows(b.x, lw.attn_norm, m, d.d, md.norm_eps, b.u);
    if (is_swa(lw))
      swa_mixer(s, lw, st, m, rope);
    else
      lin_mixer(s, lw, st, m);
    add_rows(b.x, b.tmp, m, d.d, 1.f);
    norm_rows(b.x, lw.ffn_norm, m, d.d, md.norm_eps, b.u);
    if (lw.moe)
      moe_ffn(s, lw, st, m);
    else
      dense_ffn(s, lw, m);
  }
  s->pos += m;
  if (all_logits) {
    for (uint32_t t = 0; t < m; ++t) {
      ops::rmsnorm(b.x + size_t(t) * d.d, md.final_norm, d.d, md.norm_eps, b.xn);
      readout_all(s, all_logits + size_t(t) * d.V);
    }
  }
  ops::rmsnorm(b.x + size_t(m - 1) * d.d, md.final_norm, d.d, md.norm_eps, b.xn);
}

void final_norm_rows(const amxqa_session* s, uint32_t r0, uint32_t n, float* out) {
  const size_t d = s->dim.d;
  ops::rmsnorm_rows(s->blk.x + size_t(r0) * d, d, s->model->final_norm, n, d, s->model->norm_eps,
                    out, d);
}

void readout_rows(amxqa_session* s, const uint32_t* ids, size_t n, float* out) {
  if (n) s->kernels->rows_dot(s->model->tok_emb, ids, n, s->blk.xn, out);
}

void readout_all(amxqa_session* s, float* out) {
  s->kernels->matvec(s->model->tok_emb, s->blk.xn, out);
}

}  // namespace amxqa
