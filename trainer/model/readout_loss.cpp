// readout_loss.cpp — MODEL.md "Readout (tied)": z = tok_emb · RMSNorm(x_L; final_norm),
// computed ONLY at predicted positions (target_mask) and only for the ids of the
// loss's softmax set:
//   full       — every id;
//   sampled    — the document's targets ∪ a pool of `sampled_pool` distinct ids
//                drawn from opt.seed (ours: plain sampled softmax, no logQ
//                correction; the pool is uniform so the bias is a constant shift);
//   extractive — per answer step, exactly what extractive decoding allows
//                (MODEL.md "Decoding"): the first answer row the passage ids and
//                ABSTAIN; row k > 0 the tokens that follow an occurrence of the
//                k answer tokens so far, and EOT (ours: train and decode see the
//                same choice, so "continue or stop" is learnt as such). The
//                target is always allowed, so the loss stays finite. The
//                whole-words rule is not mirrored: it only removes wrong choices.
//                Start-pointer models (MODEL.md "Start pointer") score the ANS row
//                over passage *positions* p, xf · (tok_emb[t_p] + U_p) with
//                U_p = RMSNorm(x_L[p]; final_norm), and ABSTAIN; their later rows
//                allow only the token after the chosen start's span, and EOT.
//                End-pointer models (MODEL.md "End pointer") also score the
//                first answer token's row over end positions j >= start,
//                g · U_j, with the answer's last token as target.
//                With the no-answer head (MODEL.md "No-answer head") ABSTAIN's
//                score there adds xf · (W u), u the start-score-pooled U.
// Cross-entropy per position; backward into tok_emb rows, final_norm and x_L.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "model/train_impl.h"
#include "model/train_simd.h"
#include "ops/ops.h"

namespace amxqa::train {
namespace {

void add_candidate(Work& im, uint32_t id) {
  if (im.col_of[id] >= 0) return;
  im.col_of[id] = static_cast<int32_t>(im.cand.size());
  im.cand.push_back(id);
}

// Marks in im.allow the columns extractive decoding allows at `row` (see top).
void allowed_columns(Work& im, const uint32_t* tokens, size_t n, const LossOptions& opt, uint32_t row) {
  const size_t C = im.cand.size();
  const uint32_t first = im.rows[0];  // the ANS row: answers are contiguous rows
  const size_t k = row - first;       // answer tokens emitted before this row
  const size_t pb = opt.passage_begin, pe = std::min<size_t>(opt.passage_end, n);
  std::fill(im.allow.begin(), im.allow.begin() + static_cast<long>(C), uint8_t{0});
  auto allow = [&](uint32_t id) {
    const int32_t c = id < im.col_of.size() ? im.col_of[id] : -1;
    if (c >= 0) im.allow[static_cast<size_t>(c)] = 1;
  };
  allow(tokens[row + 1]);
  if (k == 0) {
    allow(kAbstain);
    for (size_t p = pb; p < pe; ++p) allow(tokens[p]);
    return;
  }
  allow(kEot);
  if (opt.answer_begin) {  // start pointer: one candidate span, from answer_begin
    if (opt.answer_begin + k < pe) allow(tokens[opt.answer_begin + k]);
    return;
  }
  const uint32_t* prefix = tokens + first + 1;
  for (size_t p = pb + k - 1; p + 1 < pe; ++p)
    if (std::equal(prefix, prefix + k, tokens + p + 1 - k)) allow(tokens[p + 1]);
}

// Start pointer, the ANS row (see top): is it scored over positions? Only when
// the target is ABSTAIN or the token at opt.answer_begin inside the passage.
bool pointer_row(const ArchConfig& a, const uint32_t* tokens, size_t n, const LossOptions& opt,
                 uint32_t row) {
  if (!a.start_pointer || opt.kind != LossKind::extractive) return false;
  const size_t pb = opt.passage_begin, pe = std::min<size_t>(opt.passage_end, n);
  if (pb >= pe) return false;
  const uint32_t target = tokens[row + 1];
  if (target == kAbstain) return true;
  return opt.answer_begin >= pb && opt.answer_begin < pe && tokens[opt.answer_begin] == target;
}

// The no-answer head's backward (MODEL.md "No-answer head"), given g =
// d(loss)/d(z_∅) and the forward's pool (im.nap = p, im.nau = [u | W u]):
// W gets g·h uᵀ, dz[0, np) the pool softmax's g·p_i·(a_i − ā) (which the
// caller sends on as score gradients), and im.nau[2d, 3d) becomes w = Wᵀ h,
// of which U_i takes g·p_i·w and h takes g·(W u) (the caller adds those).
void no_answer_head_backward(Param& W, Work& im, const float* U, size_t np, size_t d,
                             const float* h, float g, float* dz) {
  const float* p = im.nap.data();
  const float* u = im.nau.data();
  float* w = im.nau.data() + 2 * d;
  std::fill(w, w + d, 0.f);
  for (size_t r = 0; r < d; ++r) {
    const float* Wr = W.w.data() + r * d;
    float* Gr = W.g.data() + r * d;
    const float gh = g * h[r];
    for (size_t c = 0; c < d; ++c) {
      w[c] += Wr[c] * h[r];
      Gr[c] += gh * u[c];
    }
  }
  float abar = 0.f;
  for (size_t c = 0; c < d; ++c) abar += w[c] * u[c];
  for (size_t i = 0; i < np; ++i) {
    float a = 0.f;
    for (size_t c = 0; c < d; ++c) a += w[c] * U[i * d + c];
    dz[i] += g * p[i] * (a - abar);
  }
}

// d(loss)/d(key i) = du reaches the key's inputs: straight through its final
// norm into dx, or, with the passage reader (MODEL.md "Passage reader"),
// into im.pdu, which finish_keys_backward sends through the reader first.
void key_backward(const ArchConfig& a, Param& fn, Work& im, size_t pb, size_t i, const float* du,
                  float* dx) {
  const size_t d = a.d_model;
  if (a.passage_reader) {
    float* acc = im.pdu.data() + i * d;
    for (size_t j = 0; j < d; ++j) acc[j] += du[j];
    return;
  }
  simd::rmsnorm_backward(im.x.data() + (pb + i) * d, fn.w.data(), im.pinv[i], du, d,
                         dx + (pb + i) * d, fn.g.data());
}

// The passage reader's backward, after every key gradient is in im.pdu: the
// reader takes dÛ (im.pdu) to dU (im.rdu), then each
// key's final norm takes dU into dx.
void finish_keys_backward(const ArchConfig& a, std::vector<Param>& P, Work& im, size_t pb,
                          size_t np, float* dx) {
  const size_t d = a.d_model;
  Param& fn = P[im.final_norm];
  float* dU = grow(im.rdu, np * d);
  reader_backward(a, P, im, im.ru.data(), np, im.pdu.data(), dU);
  for (size_t i = 0; i < np; ++i)
    simd::rmsnorm_backward(im.x.data() + (pb + i) * d, fn.w.data(), im.pinv[i], dU + i * d, d,
                           dx + (pb + i) * d, fn.g.data());
}

// The ANS row's softmax over positions [pb, pe) then ABSTAIN. xf0 is that row's
// final-normed state; on backward, im.pdx receives d(loss)/d(xf0), and the
// keys' gradients go into tok_emb, final_norm and dx at the passage positions.
void pointer_loss(const ArchConfig& a, std::vector<Param>& P, Work& im, const uint32_t* tokens,
                  size_t n, const LossOptions& opt, const float* xf0, float scale, bool backward,
                  StepStats& st, float* dx) {
  const size_t d = a.d_model;
  Param& emb = P[im.tok_emb];
  Param& fn = P[im.final_norm];
  const size_t pb = opt.passage_begin, np = std::min<size_t>(opt.passage_end, n) - pb;
  float* U = grow(im.pu, np * d);
  float* inv = grow(im.pinv, np);
  float* z = grow(im.pz, np + 1);
  // The keys: final-normed passage states, read by the passage reader if on.
  float* Un = a.passage_reader ? grow(im.ru, np * d) : U;
  for (size_t i = 0; i < np; ++i)
    inv[i] = ops::rmsnorm(im.x.data() + (pb + i) * d, fn.w.data(), d, a.norm_eps, Un + i * d);
  if (a.passage_reader) reader_forward(a, P, im, Un, np, U);
  for (size_t i = 0; i <= np; ++i) {  // key i: tok_emb[t_i] + U_i; key np: tok_emb[ABSTAIN]
    const float* e = emb.w.data() + size_t(i < np ? tokens[pb + i] : kAbstain) * d;
    float acc = 0.f;
    if (i < np) {
      for (size_t j = 0; j < d; ++j) acc += (e[j] + U[i * d + j]) * xf0[j];
    } else {
      for (size_t j = 0; j < d; ++j) acc += e[j] * xf0[j];
    }
    z[i] = acc;
  }
  Param* head = im.no_answer_w >= 0 ? &P[static_cast<size_t>(im.no_answer_w)] : nullptr;
  if (head) {  // MODEL.md "No-answer head": pooled over every passage position
    float* p = grow(im.nap, np);
    float* u = grow(im.nau, 3 * d);
    std::copy(z, z + np, p);
    z[np] += ops::no_answer_head(head->w.data(), xf0, U, d, np, d, p, u, u + d);
  }
  const uint32_t target = tokens[im.rows[0] + 1];
  const size_t tc = target == kAbstain ? np : opt.answer_begin - pb;
  size_t best = 0;
  for (size_t c = 1; c <= np; ++c)
    if (z[c] > z[best]) best = c;  // ties: the earlier position (runtime pick_start)
  st.correct += best == tc;
  const float zt = z[tc];
  const float lse = ops::softmax(z, np + 1);
  st.loss_sum += double(lse) - double(zt);
  ++st.predicted;
  if (!backward) return;
  for (size_t c = 0; c <= np; ++c) z[c] *= scale;  // dz = scale·(p − onehot)
  z[tc] -= scale;
  float* dh = grow(im.pdx, 2 * d);
  float* du = dh + d;
  std::fill(dh, dh + d, 0.f);
  if (a.passage_reader) {
    float* pdu = grow(im.pdu, np * d);
    std::fill(pdu, pdu + np * d, 0.f);
  }
  const float g = z[np];  // d(loss)/d(z_∅)
  if (head) {
    no_answer_head_backward(*head, im, U, np, d, xf0, g, z);
    for (size_t j = 0; j < d; ++j) dh[j] += g * im.nau[d + j];
  }
  const float* w = head ? im.nau.data() + 2 * d : nullptr;
  for (size_t i = 0; i <= np; ++i) {
    const uint32_t id = i < np ? tokens[pb + i] : kAbstain;
    const float* e = emb.w.data() + size_t(id) * d;
    float* ge = emb.g.data() + size_t(id) * d;
    for (size_t j = 0; j < d; ++j) {
      dh[j] += z[i] * (e[j] + (i < np ? U[i * d + j] : 0.f));
      ge[j] += z[i] * xf0[j];
    }
    if (i == np) break;
    for (size_t j = 0; j < d; ++j) du[j] = z[i] * xf0[j];
    if (w) {
      const float gp = g * im.nap[i];
      for (size_t j = 0; j < d; ++j) du[j] += gp * w[j];
    }
    key_backward(a, fn, im, pb, i, du, dx);
  }
}

// End pointer (see top): the answer's last passage position, or 0 when the
// first answer token's row is not a scored end row (no pointer row, row 1 not
// predicted, or the answer does not match the passage from answer_begin).
size_t end_target(const ArchConfig& a, const Work& im, const uint32_t* tokens, size_t n,
                  const LossOptions& opt, bool pointer) {
  if (!a.end_pointer || !pointer || im.rows.size() < 2 || im.rows[1] != im.rows[0] + 1) return 0;
  const size_t pe = std::min<size_t>(opt.passage_end, n), first = im.rows[0] + 1;
  size_t len = 0;
  while (first + len < n && tokens[first + len] != kEot) {
    if (opt.answer_begin + len >= pe || tokens[opt.answer_begin + len] != tokens[first + len]) return 0;
    ++len;
  }
  if (len == 0 || tokens[first] == kAbstain) return 0;
  return opt.answer_begin + len - 1;
}

// The first answer token's row softmax over ends [answer_begin, pe): g · U_j,
// with U from pointer_loss (im.pu, im.pinv). On backward, im.edx[0, d)
// receives d(loss)/d(g); the keys' gradients go into final_norm and dx.
void end_loss(const ArchConfig& a, std::vector<Param>& P, Work& im, size_t n, const LossOptions& opt,
              size_t target, const float* g, float scale, bool backward, StepStats& st, float* dx) {
  const size_t d = a.d_model, pb = opt.passage_begin, s0 = opt.answer_begin;
  const size_t ne = std::min<size_t>(opt.passage_end, n) - s0;
  Param& fn = P[im.final_norm];
  const float* U = im.pu.data() + (s0 - pb) * d;
  float* z = grow(im.ez, ne);
  for (size_t j = 0; j < ne; ++j) {
    float acc = 0.f;
    for (size_t k = 0; k < d; ++k) acc += U[j * d + k] * g[k];
    z[j] = acc;
  }
  const size_t tc = target - s0;
  size_t best = 0;
  for (size_t j = 1; j < ne; ++j)
    if (z[j] > z[best]) best = j;  // ties: the earlier position (runtime pick_end)
  st.end_correct += best == tc;
  const float zt = z[tc];
  const float lse = ops::softmax(z, ne);
  st.loss_sum += double(lse) - double(zt);
  ++st.predicted;
  if (!backward) return;
  for (size_t j = 0; j < ne; ++j) z[j] *= scale;
  z[tc] -= scale;
  float* dg = grow(im.edx, 2 * d);
  float* du = dg + d;
  std::fill(dg, dg + d, 0.f);
  for (size_t j = 0; j < ne; ++j) {
    for (size_t k = 0; k < d; ++k) {
      dg[k] += z[j] * U[j * d + k];
      du[k] = z[j] * g[k];
    }
    key_backward(a, fn, im, pb, s0 - pb + j, du, dx);
  }
}

}  // namespace

void readout_loss(const ArchConfig& a, std::vector<Param>& P, Work& im, const uint32_t* tokens,
                  size_t n, const uint8_t* target_mask, const LossOptions& opt, bool backward,
                  StepStats& st, float* dx) {
  const size_t d = a.d_model, V = a.vocab_size;
  Param& emb = P[im.tok_emb];
  Param& fn = P[im.final_norm];
  im.rows.clear();
  for (size_t t = 0; t + 1 < n; ++t)
    if (target_mask[t]) im.rows.push_back(static_cast<uint32_t>(t));
  const size_t m = im.rows.size();
  if (m == 0) return;

  // The softmax set. full uses tok_emb in place; the others gather their rows.
  const bool full = opt.kind == LossKind::full ||
                    (opt.kind == LossKind::sampled && size_t(opt.sampled_pool) + m >= V);
  im.col_of.assign(V, -1);
  im.cand.clear();
  if (full) {
    for (uint32_t i = 0; i < V; ++i) add_candidate(im, i);
  } else {
    for (uint32_t r : im.rows) add_candidate(im, tokens[r + 1]);
    if (opt.kind == LossKind::sampled) {
      uint64_t s = opt.seed ^ 0xA5A5F00Dull;
      const size_t want = im.cand.size() + opt.sampled_pool;
      while (im.cand.size() < want) add_candidate(im, static_cast<uint32_t>(splitmix64(s) % V));
    } else {
      add_candidate(im, kEot);
      add_candidate(im, kAbstain);
      const size_t e = std::min<size_t>(opt.passage_end, n);
      for (size_t p = opt.passage_begin; p < e; ++p)
        if (tokens[p] < V) add_candidate(im, tokens[p]);
    }
  }
  const size_t C = im.cand.size();
  const float* E = emb.w.data();
  if (!full) {
    float* ec = grow(im.ec, C * d);
    for (size_t c = 0; c < C; ++c) std::memcpy(ec + c * d, E + size_t(im.cand[c]) * d, d * sizeof(float));
    E = ec;
  }

  // Final norm of the predicted rows, logits, softmax.
  float* xf = grow(im.xf, m * d);
  float* finv = grow(im.finv, m);
  for (size_t i = 0; i < m; ++i)
    finv[i] = ops::rmsnorm(im.x.data() + size_t(im.rows[i]) * d, fn.w.data(), d, a.norm_eps,
                           xf + i * d);
  float* z = grow(im.zl, m * C);
  gemm_nt(m, C, d, xf, d, E, d, z, C);
  const float scale = opt.ce_scale > 0.f ? opt.ce_scale : 1.0f / static_cast<float>(m);
  const bool per_step = opt.kind == LossKind::extractive && !full;
  if (per_step) im.allow.resize(C);
  const bool pointer = pointer_row(a, tokens, n, opt, im.rows[0]);
  LossOptions row_opt = opt;  // answer_begin marks the pointer's one span, only when on
  if (!pointer) row_opt.answer_begin = 0;
  const size_t end_at = end_target(a, im, tokens, n, opt, pointer);
  for (size_t i = 0; i < m; ++i) {
    float* zi = z + i * C;
    if (pointer && i == 0) {
      pointer_loss(a, P, im, tokens, n, opt, xf, scale, backward, st, dx);
      std::fill(zi, zi + C, 0.f);  // no id-softmax gradient from this row
      if (end_at) end_loss(a, P, im, n, opt, end_at, xf + d, scale, backward, st, dx);
      if (backward && a.passage_reader)
        finish_keys_backward(a, P, im, opt.passage_begin, std::min<size_t>(opt.passage_end, n) - opt.passage_begin, dx);
      continue;
    }
    if (per_step) {
      allowed_columns(im, tokens, n, row_opt, im.rows[i]);
      for (size_t c = 0; c < C; ++c)
        if (!im.allow[c]) zi[c] = -INFINITY;  // softmax gives 0: no gradient either
    }
    const size_t tc = static_cast<size_t>(im.col_of[tokens[im.rows[i] + 1]]);
    const float zt = zi[tc];
    size_t best = 0;
    for (size_t c = 1; c < C; ++c)
      if (zi[c] > zi[best] || (zi[c] == zi[best] && im.cand[c] < im.cand[best])) best = c;
    st.correct += best == tc;
    // The kernels' softmax (vector canonical exp): ops::softmax's libm expf was
    // 5% of the pretraining step on AVX-512.
    const float lse = train_kernels().softmax(zi, C);
    st.loss_sum += double(lse) - double(zt);
    ++st.predicted;
    if (backward) {
      for (size_t c = 0; c < C; ++c) zi[c] *= scale;  // dz = scale·(p − onehot)
      zi[tc] -= scale;
    }
  }
  if (!backward) return;

  float* dxf = grow(im.dxf, m * d);
  gemm_nn(m, d, C, z, C, E, d, dxf, d);
  if (full) {
    gemm_tn_acc(C, d, m, z, C, xf, d, emb.g.data(), d);
  } else {
    float* dec = grow(im.dec, C * d);
    std::memset(dec, 0, C * d * sizeof(float));
    gemm_tn_acc(C, d, m, z, C, xf, d, dec, d);
    for (size_t c = 0; c < C; ++c) {
      float* g = emb.g.data() + size_t(im.cand[c]) * d;
      const float* s = dec + c * d;
      for (size_t i = 0; i < d; ++i) g[i] += s[i];
    }
  }
  if (pointer)
    for (size_t j = 0; j < d; ++j) dxf[j] += im.pdx[j];
  if (end_at)
    for (size_t j = 0; j < d; ++j) dxf[d + j] += im.edx[j];
  for (size_t i = 0; i < m; ++i) {
    const size_t r = im.rows[i];
    simd::rmsnorm_backward(im.x.data() + r * d, fn.w.data(), finv[i], dxf + i * d, d, dx + r * d,
                     fn.g.data());
  }
}

}  // namespace amxqa::train
