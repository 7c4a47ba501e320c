// passage_reader.cpp — MODEL.md "Passage reader" on a session: after the
// prefill, the pointers' keys pass_u (final-normed passage states, which read
// only to their left) each attend over the whole passage, both sides, and
// take the result into their residual: Û_i = U_i + Wo · attend(q_i; K, V).
// K and V of every token come first, from the keys as the prefill left them,
// so each block of keys can then be updated in place. The four products are
// the kernel table's weight GEMMs and the attention its attend_gemm (no mask)
// and softmax: with bf16 or i8 weights every ISA computes the same bits.
#include "session/passage_reader.h"

#include <cmath>

#include "ops/ops.h"
#include "session/forward.h"

namespace amxqa {
namespace {

// Queries whose scores over the whole passage are formed at once: the score
// matrix is kScoreRows × n floats of the session.
constexpr uint32_t kScoreRows = 16;

}  // namespace

size_t reader_floats(const amxqa_model& m, size_t n, bool& ovf) {
  const size_t r = size_t(ops::kReaderHeads) * m.head_dim;
  const size_t per_token = 2 * r + m.head_dim + kScoreRows;  // K, V, a RoPE row, scores
  if (n > SIZE_MAX / per_token) ovf = true;
  return n * per_token + 2 * size_t(kPrefillRows) * r;  // + a block's Q and O
}

namespace {

// reader_buf's parts, laid out for the session's passage capacity N (so the
// RoPE rows, the same for every passage, are computed once, at init).
struct ReaderBuf {
  float *K, *V, *cs, *S, *Q, *O;
};
ReaderBuf reader_parts(const amxqa_session* s) {
  const size_t N = s->opt_init.max_passage_tokens, hd = s->model->head_dim;
  const size_t r = size_t(ops::kReaderHeads) * hd;
  ReaderBuf b;
  b.K = s->reader_buf;
  b.V = b.K + N * r;
  b.cs = b.V + N * r;
  b.S = b.cs + N * hd;
  b.Q = b.S + size_t(kScoreRows) * N;
  b.O = b.Q + size_t(kPrefillRows) * r;
  return b;
}

}  // namespace

void reader_init(amxqa_session* s) {
  if (!s->model->passage_reader) return;
  ops::rope_table(0, s->opt_init.max_passage_tokens, s->model->head_dim, s->model->rope_theta,
                  reader_parts(s).cs);
}

void read_passage(amxqa_session* s, uint32_t n) {
  const amxqa_model& m = *s->model;
  if (!m.passage_reader || n == 0) return;
  const Kernels& k = *s->kernels;
  const size_t d = s->dim.d, hd = m.head_dim, heads = ops::kReaderHeads, r = heads * hd;
  const ReaderBuf rb = reader_parts(s);
  float *K = rb.K, *V = rb.V, *S = rb.S, *Q = rb.Q, *O = rb.O;
  const float* cs = rb.cs;
  float* R = s->blk.tmp;  // kPrefillRows × d, free once the prefill is done
  for (uint32_t i0 = 0; i0 < n; i0 += kPrefillRows) {
    const uint32_t rows = n - i0 < kPrefillRows ? n - i0 : kPrefillRows;
    const float* U = s->pass_u + size_t(i0) * d;
    gemm(k, m.reader_wk, U, d, rows, K + size_t(i0) * r, r);
    gemm(k, m.reader_wv, U, d, rows, V + size_t(i0) * r, r);
    for (uint32_t t = 0; t < rows; ++t)
      ops::rope_apply(K + size_t(i0 + t) * r, heads, hd, cs + size_t(i0 + t) * hd);
  }
  for (uint32_t i0 = 0; i0 < n; i0 += kPrefillRows) {
    const uint32_t rows = n - i0 < kPrefillRows ? n - i0 : kPrefillRows;
    float* U = s->pass_u + size_t(i0) * d;
    gemm(k, m.reader_wq, U, d, rows, Q, r);
    for (uint32_t t = 0; t < rows; ++t)
      ops::rope_apply(Q + size_t(t) * r, heads, hd, cs + size_t(i0 + t) * hd);
    const float scale = 1.0f / std::sqrt(static_cast<float>(hd));
    for (uint32_t t0 = 0; t0 < rows; t0 += kScoreRows) {
      const uint32_t q = rows - t0 < kScoreRows ? rows - t0 : kScoreRows;
      for (size_t h = 0; h < heads; ++h) {  // every query sees every key: no mask
        k.attend_gemm(true, q, n, hd, scale, Q + size_t(t0) * r + h * hd, r, K + h * hd, r, S, n,
                      kNoCausalLimit);
        for (uint32_t t = 0; t < q; ++t) k.softmax(S + size_t(t) * n, n);
        k.attend_gemm(false, q, hd, n, 1.f, S, n, V + h * hd, r, O + size_t(t0) * r + h * hd, r,
                      kNoCausalLimit);
      }
    }
    gemm(k, m.reader_wo, O, r, rows, R, d);
    for (size_t i = 0; i < size_t(rows) * d; ++i) U[i] += R[i];
  }
}

}  // namespace amxqa
