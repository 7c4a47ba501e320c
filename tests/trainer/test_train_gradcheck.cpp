// test_train_gradcheck.cpp — the trainer's hand-written backward pass against
// central finite differences of its own forward pass, for every parameter
// kind (embeddings, norms, swa, lin, MLP, MoE router and experts, the
// no-answer head) and every loss (full, sampled, extractive, load balance alone).
//
// Float care: the forward runs in f32, so the objective is a SUM of CE over the
// document (ce_scale = 1; loss_sum is accumulated in double), weights are
// scaled up so gradients are O(0.1), eps = 1e-3, and the checked coordinates
// are the largest-gradient ones of a random sample (tiny gradients are all
// rounding noise in a float finite difference). A perturbation that flips a
// MoE routing decision makes the objective discontinuous: such coordinates
// are detected through the expert counts and skipped.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "model/train_model.h"

using namespace amxqa;
using namespace amxqa::train;

namespace {

ArchConfig tiny_arch(bool moe) {
  ArchConfig a;
  a.d_model = 16;
  a.n_layers = 3;
  a.layer_kinds = {kLayerLin, kLayerSwa, kLayerSwa};
  a.n_heads = 2;
  a.n_kv_heads = 1;
  a.head_dim = 8;
  a.window = 4;  // shorter than the document: the window edge is exercised
  a.lin_state = 6;
  a.d_ff = 24;
  if (moe) {
    a.moe_experts = 5;
    a.moe_top_k = 2;
    a.moe_d_ff = 8;
    a.moe_route_block = 4;
    a.moe_route_window = 3;
    a.moe_layers = {0, 2};
  }
  a.vocab_size = 40;
  return a;
}

struct Doc {
  std::vector<uint32_t> tokens;
  std::vector<uint8_t> mask;
};

Doc make_doc(size_t n, uint64_t seed, uint32_t vocab) {
  Doc d;
  uint64_t s = seed;
  d.tokens.push_back(kBos);
  for (size_t i = 1; i < n; ++i) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    d.tokens.push_back(5 + static_cast<uint32_t>((s >> 33) % (vocab - 5)));
  }
  d.mask.assign(n, 1);
  return d;
}

// Larger weights than the init so every path carries a measurable gradient.
void scale_up(TrainModel& m, uint64_t seed) {
  uint64_t s = seed;
  for (Param& p : m.params()) {
    const bool gain = p.name.find("norm") != std::string::npos;
    for (float& w : p.w) {
      s = s * 6364136223846793005ull + 1442695040888963407ull;
      const float jitter = static_cast<float>((s >> 40) & 0xFFFF) / 65536.f - 0.5f;
      if (gain)
        w = 1.0f + 0.4f * jitter;
      else if (p.name.find(".ba") == std::string::npos)
        w *= 6.0f;
    }
  }
}

struct Eval {
  double J;
  std::vector<uint64_t> counts;
};

Eval objective(TrainModel& m, const Doc& d, const LossOptions& opt) {
  StepStats st = m.evaluate(d.tokens.data(), d.tokens.size(), d.mask.data(), opt);
  return {st.loss_sum * opt.ce_scale + st.aux_loss * opt.aux_scale, st.expert_counts};
}

// Checks `per_tensor` coordinates of every parameter; returns how many were checked.
size_t check_all(TrainModel& m, const Doc& d, const LossOptions& opt, size_t per_tensor,
                 const std::vector<std::string>& skip_substr = {}) {
  m.zero_grad();
  m.forward_backward(d.tokens.data(), d.tokens.size(), d.mask.data(), opt);
  const Eval base = objective(m, d, opt);
  const float eps = 1e-3f;
  size_t checked = 0;
  uint64_t s = 12345;
  for (Param& p : m.params()) {
    bool skip = false;
    for (const std::string& k : skip_substr) skip |= p.name.find(k) != std::string::npos;
    if (skip) continue;
    // The largest-gradient coordinates among a random sample.
    std::vector<size_t> idx;
    for (int i = 0; i < 48; ++i) {
      s = s * 6364136223846793005ull + 1442695040888963407ull;
      idx.push_back((s >> 33) % p.w.size());
    }
    std::sort(idx.begin(), idx.end(), [&](size_t a, size_t b) {
      return std::fabs(p.g[a]) > std::fabs(p.g[b]) || (std::fabs(p.g[a]) == std::fabs(p.g[b]) && a < b);
    });
    idx.erase(std::unique(idx.begin(), idx.end()), idx.end());
    const size_t want = std::min(per_tensor, idx.size());  // ba has only H entries
    size_t done = 0;
    for (size_t i : idx) {
      if (done == want) break;
      const float w0 = p.w[i];
      p.w[i] = w0 + eps;
      const Eval plus = objective(m, d, opt);
      p.w[i] = w0 - eps;
      const Eval minus = objective(m, d, opt);
      p.w[i] = w0;
      if (plus.counts != base.counts || minus.counts != base.counts) continue;  // routing flipped
      const double fd = (plus.J - minus.J) / (2.0 * eps);
      const double an = p.g[i];
      const double tol = 3e-3 + 0.03 * std::max(std::fabs(fd), std::fabs(an));
      INFO(p.name << "[" << i << "] analytic " << an << " numeric " << fd);
      CHECK(std::fabs(fd - an) <= tol);
      if (std::getenv("GRADCHECK_VERBOSE"))
        std::printf("%-14s %6zu an %+.5e fd %+.5e rel %.2e\n", p.name.c_str(), i, an, fd,
                    std::fabs(fd - an) / std::max(1e-12, std::max(std::fabs(fd), std::fabs(an))));
      ++done;
    }
    INFO(p.name);
    CHECK(done == want);
    checked += done;
  }
  return checked;
}

// Central difference of coordinate `at` of p against its analytic gradient
// (forward_backward must have run); returns the analytic value.
double check_coord(TrainModel& m, const Doc& d, const LossOptions& opt, Param& p, size_t at) {
  const float eps = 1e-3f, w0 = p.w[at];
  p.w[at] = w0 + eps;
  const double plus = objective(m, d, opt).J;
  p.w[at] = w0 - eps;
  const double minus = objective(m, d, opt).J;
  p.w[at] = w0;
  const double fd = (plus - minus) / (2.0 * eps), an = p.g[at];
  INFO(p.name << "[" << at << "] analytic " << an << " numeric " << fd);
  CHECK(std::fabs(fd - an) <= 3e-3 + 0.03 * std::max(std::fabs(fd), std::fabs(an)));
  return an;
}

// Abstention as the target of row 8 (the ANS row of the pointer documents
// below): ABSTAIN then EOT, rows 8 and 9 predicted.
// A part of m that starts at zero (tensor `part`: the no-answer head's W or
// the passage reader's wo; m0, the plain model, has no tensor `absent`) adds
// nothing at its init: m's loss is m0's, bit for bit. Then the part is filled
// with uniform values in ±scale/2 (from `seed`), the loss must move (the part
// is live), and every tensor is gradchecked. Returns the part, with m's
// gradients of the document computed for the caller's own coordinates.
Param& zero_init_part_gradcheck(TrainModel& m, TrainModel& m0, const Doc& d, const LossOptions& opt,
                                const char* part, const char* absent, uint64_t seed, float scale) {
  Param* found = m.find(part);
  REQUIRE(found != nullptr);
  CHECK(m0.find(absent) == nullptr);
  Param& p = *found;
  for (float x : p.w) REQUIRE(x == 0.f);
  const double zero_loss = m.evaluate(d.tokens.data(), d.tokens.size(), d.mask.data(), opt).loss_sum;
  CHECK(zero_loss == m0.evaluate(d.tokens.data(), d.tokens.size(), d.mask.data(), opt).loss_sum);
  uint64_t s = seed;
  for (float& x : p.w) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    x = (static_cast<float>((s >> 40) & 0xFFFF) / 65536.f - 0.5f) * scale;
  }
  const double live_loss = m.evaluate(d.tokens.data(), d.tokens.size(), d.mask.data(), opt).loss_sum;
  CHECK(std::fabs(live_loss - zero_loss) > 1e-3);
  CHECK(check_all(m, d, opt, 3) > 0);
  m.zero_grad();
  m.forward_backward(d.tokens.data(), d.tokens.size(), d.mask.data(), opt);
  return p;
}

void abstain_target(Doc& d) {
  d.mask.assign(d.tokens.size(), 0);
  d.tokens[9] = kAbstain;
  d.tokens[10] = kEot;
  d.mask[8] = d.mask[9] = 1;
}

// Extractive loss options over the passage [3, passage_end), summed CE.
LossOptions extractive_options(uint32_t passage_end) {
  LossOptions opt;
  opt.kind = LossKind::extractive;
  opt.passage_begin = 3;
  opt.passage_end = passage_end;
  opt.ce_scale = 1.f;
  return opt;
}

}  // namespace

TEST_SUITE("unit") {
  TEST_CASE("gradcheck: full softmax, dense layers (lin, swa, swa with MLPs)") {
    TrainModel m(tiny_arch(false), 7);
    scale_up(m, 1);
    Doc d = make_doc(11, 3, 40);
    LossOptions opt;
    opt.kind = LossKind::full;
    opt.ce_scale = 1.f;
    CHECK(check_all(m, d, opt, 4) > 0);
  }

  TEST_CASE("gradcheck: MoE layers, full softmax (router through gates and statistic)") {
    TrainModel m(tiny_arch(true), 11);
    scale_up(m, 2);
    Doc d = make_doc(14, 5, 40);  // blocks of 4: the last one is partial
    LossOptions opt;
    opt.kind = LossKind::full;
    opt.ce_scale = 1.f;
    opt.load_balance = 0.01f;
    CHECK(check_all(m, d, opt, 4) > 0);
    // Only the chosen experts have gradient, and exactly those are touched.
    const Param* w1 = m.find("l0.moe_w1");
    REQUIRE(w1 != nullptr);
    const size_t slice = w1->w.size() / w1->touched.size();
    size_t touched = 0;
    for (size_t e = 0; e < w1->touched.size(); ++e) {
      bool any = false;
      for (size_t i = 0; i < slice; ++i) any |= w1->g[e * slice + i] != 0.f;
      if (w1->touched[e]) ++touched;
      else CHECK_FALSE(any);
    }
    CHECK(touched >= 2);
    CHECK(touched <= 5);
  }

  TEST_CASE("gradcheck: sampled softmax") {
    TrainModel m(tiny_arch(true), 13);
    scale_up(m, 3);
    Doc d = make_doc(12, 9, 40);
    LossOptions opt;
    opt.kind = LossKind::sampled;
    opt.sampled_pool = 6;
    opt.seed = 99;
    opt.ce_scale = 1.f;
    CHECK(check_all(m, d, opt, 3) > 0);
  }

  TEST_CASE("gradcheck: extractive loss, answer positions only") {
    TrainModel m(tiny_arch(true), 17);
    scale_up(m, 4);
    Doc d = make_doc(13, 21, 40);
    // Answer = passage tokens 6..7 then EOT, predicted from positions 8..10.
    d.tokens[9] = d.tokens[6];
    d.tokens[10] = d.tokens[7];
    d.tokens[11] = kEot;
    d.mask.assign(d.tokens.size(), 0);
    d.mask[8] = d.mask[9] = d.mask[10] = 1;
    LossOptions opt;
    opt.kind = LossKind::extractive;
    opt.passage_begin = 3;
    opt.passage_end = 8;
    opt.ce_scale = 1.f;
    const StepStats st = m.evaluate(d.tokens.data(), d.tokens.size(), d.mask.data(), opt);
    CHECK(st.predicted == 3);
    CHECK(check_all(m, d, opt, 3) > 0);
  }

  TEST_CASE("gradcheck: start pointer scores passage positions (answer and abstain rows)") {
    ArchConfig a = tiny_arch(false);
    a.start_pointer = true;
    a.question_match = true;
    TrainModel m(a, 23);
    scale_up(m, 6);
    for (int abstain = 0; abstain < 2; ++abstain) {
      Doc d = make_doc(13, 29 + abstain, 40);
      LossOptions opt = extractive_options(8);
      d.tokens[4] = d.tokens[1];  // a question-matched passage token
      abstain_target(d);
      if (!abstain) {
        // Answer = passage tokens 6..7 then EOT; token 6's id also occurs at 3,
        // so only the pointer tells the two starts apart.
        d.tokens[3] = d.tokens[6];
        d.tokens[9] = d.tokens[6];
        d.tokens[10] = d.tokens[7];
        d.tokens[11] = kEot;
        d.mask[8] = d.mask[9] = d.mask[10] = 1;
        opt.answer_begin = 6;
      }
      INFO("abstain " << abstain);
      const StepStats st = m.evaluate(d.tokens.data(), d.tokens.size(), d.mask.data(), opt);
      CHECK(st.predicted == (abstain ? 2u : 3u));
      CHECK(check_all(m, d, opt, 3) > 0);
      // The key rows tok_emb[t_p] of the passage, which a random sample may miss.
      Param* emb = m.find("tok_emb");
      REQUIRE(emb != nullptr);
      m.zero_grad();
      m.forward_backward(d.tokens.data(), d.tokens.size(), d.mask.data(), opt);
      for (uint32_t p = 3; p < 8; ++p)
        for (size_t i = 0; i < 4; ++i)
          check_coord(m, d, opt, *emb, size_t(d.tokens[p]) * a.d_model + i * (a.d_model / 4));
    }
  }

  TEST_CASE("gradcheck: the no-answer head (W, and h and U through the pool), answer and abstain rows") {
    ArchConfig a = tiny_arch(false);
    a.start_pointer = true;
    a.no_answer_head = true;
    ArchConfig plain = a;
    plain.no_answer_head = false;
    for (int abstain = 0; abstain < 2; ++abstain) {
      Doc d = make_doc(13, 41 + abstain, 40);
      LossOptions opt = extractive_options(8);
      abstain_target(d);
      if (!abstain) {
        d.tokens[9] = d.tokens[5];  // answer = passage token 5, then EOT
        opt.answer_begin = 5;
      }
      INFO("abstain " << abstain);
      TrainModel m(a, 31), m0(plain, 31);
      scale_up(m, 8);
      scale_up(m0, 8);
      // Every tensor: final_norm and the layers reach the loss through h and U.
      Param* W = &zero_init_part_gradcheck(m, m0, d, opt, "no_answer_w", "no_answer_w", 77 + abstain, 1.5f);
      // More of W than a sample, and the final norm's gain (both h and every U_i).
      for (size_t i = 0; i < 6; ++i) check_coord(m, d, opt, *W, i * 41 % W->w.size());
      Param* fn = m.find("final_norm");
      REQUIRE(fn != nullptr);
      for (size_t i = 0; i < a.d_model; i += 3) check_coord(m, d, opt, *fn, i);
      // The passage key rows tok_emb[t_p]: the pool's softmax reaches them as scores.
      Param* emb = m.find("tok_emb");
      REQUIRE(emb != nullptr);
      for (uint32_t p = 3; p < 8; ++p)
        for (size_t i = 0; i < 2; ++i)
          check_coord(m, d, opt, *emb, size_t(d.tokens[p]) * a.d_model + i * (a.d_model / 2) + p);
    }
  }

  TEST_CASE("gradcheck: the passage reader (keys read both sides) under the start, end and no-answer scores") {
    ArchConfig a = tiny_arch(false);
    a.start_pointer = true;
    a.end_pointer = true;
    a.no_answer_head = true;
    a.passage_reader = true;
    ArchConfig plain = a;
    plain.passage_reader = false;
    for (int abstain = 0; abstain < 2; ++abstain) {
      Doc d = make_doc(15, 61 + abstain, 40);
      LossOptions opt = extractive_options(9);
      if (abstain) {
        abstain_target(d);
      } else {  // answer = passage tokens 5..6 then EOT: start, end and id rows
        d.tokens[10] = d.tokens[5];
        d.tokens[11] = d.tokens[6];
        d.tokens[12] = kEot;
        d.mask.assign(d.tokens.size(), 0);
        d.mask[9] = d.mask[10] = d.mask[11] = 1;
        opt.answer_begin = 5;
      }
      INFO("abstain " << abstain);
      TrainModel m(a, 37), m0(plain, 37);
      scale_up(m, 9);
      scale_up(m0, 9);
      zero_init_part_gradcheck(m, m0, d, opt, "reader_wo", "reader_wq", 91 + abstain, 0.5f);
      // More of each reader tensor than the sample, and the final norm (keys and h).
      for (const char* name : {"reader_wq", "reader_wk", "reader_wv", "reader_wo"}) {
        Param* w = m.find(name);
        REQUIRE(w != nullptr);
        for (size_t i = 0; i < 8; ++i) check_coord(m, d, opt, *w, (i * 977 + 13) % w->w.size());
      }
      Param* fn = m.find("final_norm");
      REQUIRE(fn != nullptr);
      for (size_t i = 0; i < a.d_model; i += 5) check_coord(m, d, opt, *fn, i);
    }
  }

  TEST_CASE("gradcheck: end pointer scores the span's last position from the first answer row") {
    ArchConfig a = tiny_arch(false);
    a.start_pointer = true;
    a.end_pointer = true;
    a.question_match = true;
    TrainModel m(a, 29);
    scale_up(m, 6);
    Doc d = make_doc(15, 31, 40);
    LossOptions opt = extractive_options(9);
    // Answer = passage tokens 5..7 then EOT (rows 9, 10, 11, 12 predicted).
    d.tokens[10] = d.tokens[5];
    d.tokens[11] = d.tokens[6];
    d.tokens[12] = d.tokens[7];
    d.tokens[13] = kEot;
    d.mask.assign(d.tokens.size(), 0);
    d.mask[9] = d.mask[10] = d.mask[11] = d.mask[12] = 1;
    opt.answer_begin = 5;
    // The ANS row: token 8 (last of the passage) stands in for ANS here.
    const StepStats st = m.evaluate(d.tokens.data(), d.tokens.size(), d.mask.data(), opt);
    CHECK(st.predicted == 5u);  // start, end, and the three id rows after ANS
    CHECK(check_all(m, d, opt, 3) > 0);
    // Without the flag the same document has no end row.
    ArchConfig b = a;
    b.end_pointer = false;
    TrainModel m2(b, 29);
    CHECK(m2.evaluate(d.tokens.data(), d.tokens.size(), d.mask.data(), opt).predicted == 4u);
  }

  TEST_CASE("gradcheck: question match adds the PAD row to matching passage tokens") {
    ArchConfig a = tiny_arch(false);
    a.question_match = true;
    TrainModel m(a, 19);
    scale_up(m, 5);
    Doc d = make_doc(13, 23, 40);
    // Question = tokens 1..2, passage = 3..7; tokens 4 and 6 repeat question tokens.
    d.tokens[4] = d.tokens[1];
    d.tokens[6] = d.tokens[2];
    d.tokens[9] = d.tokens[4];
    d.tokens[10] = kEot;
    d.mask.assign(d.tokens.size(), 0);
    d.mask[8] = d.mask[9] = 1;
    LossOptions opt;
    opt.kind = LossKind::extractive;
    opt.passage_begin = 3;
    opt.passage_end = 8;
    opt.ce_scale = 1.f;
    CHECK(check_all(m, d, opt, 3) > 0);
    // Every coordinate of the PAD row: its only gradient is the match feature's.
    Param* emb = m.find("tok_emb");
    REQUIRE(emb != nullptr);
    m.zero_grad();
    m.forward_backward(d.tokens.data(), d.tokens.size(), d.mask.data(), opt);
    double gnorm = 0;
    for (size_t i = 0; i < a.d_model; ++i) {
      const double an = check_coord(m, d, opt, *emb, size_t(kPad) * a.d_model + i);
      gnorm += an * an;
    }
    CHECK(gnorm > 1e-6);  // the feature is live (PAD is outside the extractive softmax)
  }

  TEST_CASE("gradcheck: load-balance loss alone") {
    TrainModel m(tiny_arch(true), 19);
    scale_up(m, 5);
    Doc d = make_doc(16, 23, 40);
    d.mask.assign(d.tokens.size(), 0);  // no readout: the objective is the aux loss only
    LossOptions opt;
    opt.load_balance = 1.0f;
    opt.ce_scale = 1.f;
    const StepStats st = m.evaluate(d.tokens.data(), d.tokens.size(), d.mask.data(), opt);
    CHECK(st.predicted == 0);
    CHECK(st.aux_loss > 0.0);
    // The final norm and the last MoE layer's experts cannot reach the aux loss.
    CHECK(check_all(m, d, opt, 3, {"final_norm", "l2.moe_w"}) > 0);
  }

  TEST_CASE("forward_backward and evaluate agree; loss is the mean CE by default") {
    TrainModel m(tiny_arch(true), 23);
    Doc d = make_doc(20, 29, 40);
    LossOptions opt;
    const StepStats a = m.evaluate(d.tokens.data(), d.tokens.size(), d.mask.data(), opt);
    const StepStats b = m.forward_backward(d.tokens.data(), d.tokens.size(), d.mask.data(), opt);
    CHECK(a.loss_sum == b.loss_sum);
    CHECK(a.predicted == 19);
    CHECK(a.loss_sum / a.predicted == doctest::Approx(std::log(40.0)).epsilon(0.05));
    CHECK(m.grad_norm() > 0.0);
    std::vector<float> logits;
    m.last_logits(d.tokens.data(), d.tokens.size(), logits);
    CHECK(logits.size() == 40);
  }
}
