// passage_reader.cpp — MODEL.md "Passage reader" on a session: after the
// prefill, the pointers' keys pass_u (final-normed passage states, which read
// only to their left) each attend over the whole passage, both sides, and
// take the result into their residual: Û_i = U_i + Wo · attend(q_i; K, V).
// K and V of every token come first, from the keys as the prefill left them,
// so each key can then be updated in place. Every product is the kernel
// table's dot_rows and softmax, whose canonical order gives every ISA the
// same bits (as the no-answer head, the reader's weights are f32 in every
// file).
#include "session/passage_reader.h"

#include <cstring>

#include "ops/ops.h"
#include "session/forward.h"

namespace amxqa {
namespace {

// y[rows] += W[rows][cols] · x (dot_rows adds to y).
void add_rows_times(const Kernels& k, const float* W, size_t rows, size_t cols, const float* x,
                    float* y) {
  k.dot_rows(W, cols, rows, x, cols, y);
}

// y[rows] = W[rows][cols] · x.
void rows_times(const Kernels& k, const float* W, size_t rows, size_t cols, const float* x, float* y) {
  std::memset(y, 0, rows * sizeof(float));
  add_rows_times(k, W, rows, cols, x, y);
}

}  // namespace

void read_passage(amxqa_session* s, uint32_t n) {
  const amxqa_model& m = *s->model;
  if (!m.passage_reader || n == 0) return;
  const Kernels& k = *s->kernels;
  const size_t d = s->dim.d, hd = m.head_dim, heads = ops::kReaderHeads, r = heads * hd;
  float* K = s->reader_buf;
  float* V = K + size_t(n) * r;
  float* cs = V + size_t(n) * r;
  float* probs = cs + size_t(n) * hd;
  float* q = probs + n;
  float* o = q + r;
  ops::rope_table(0, n, hd, m.rope_theta, cs);
  for (uint32_t i = 0; i < n; ++i) {
    const float* u = s->pass_u + size_t(i) * d;
    rows_times(k, m.reader_wk, r, d, u, K + size_t(i) * r);
    rows_times(k, m.reader_wv, r, d, u, V + size_t(i) * r);
    ops::rope_apply(K + size_t(i) * r, heads, hd, cs + size_t(i) * hd);
  }
  for (uint32_t i = 0; i < n; ++i) {
    float* u = s->pass_u + size_t(i) * d;
    rows_times(k, m.reader_wq, r, d, u, q);
    ops::rope_apply(q, heads, hd, cs + size_t(i) * hd);
    for (size_t h = 0; h < heads; ++h)
      attend_row(k, q + h * hd, K + h * hd, V + h * hd, r, n, hd, probs, o + h * hd);
    add_rows_times(k, m.reader_wo, d, r, o, u);
  }
}

}  // namespace amxqa
