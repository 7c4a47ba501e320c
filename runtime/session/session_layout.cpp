// session_layout.cpp — how a session is laid out in caller memory, and the
// session-management API (options, size, init, finish, isa, error message).
// amxqa_session_size() and amxqa_session_init() run the *same* planner, one
// without a base pointer (sizing) and one with it (placing), so the size a
// caller is told is exactly the size init needs.
#include <cmath>
#include <cstdarg>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <new>

#include "amxqa.h"
#include "amxqa_generated.h"  // fb::LayerKind
#include "api/errors.h"
#include "cpu/isa_select.h"
#include "kernels/amx/amx_thread.h"
#include "session/passage_reader.h"
#include "session/session.h"
#include "tokenizer/tokenizer.h"

namespace amxqa {
namespace {

// Limits that keep every position and index in uint32 with room to spare.
constexpr uint32_t kMaxPassageTokensLimit = 1u << 24;
// sizeof(amxqa_session_options) in 0.1, before the no-answer threshold.
constexpr uint32_t kOptionsSizeV01 = 28;
static_assert(offsetof(amxqa_session_options, no_answer_threshold) == kOptionsSizeV01,
              "0.2's fields follow 0.1's struct");
constexpr uint32_t kMaxQuestionTokensLimit = 1u << 20;
constexpr uint32_t kMaxAnswerTokensLimit = 1u << 16;
// The top-k and window options took 0.2's reserved bytes: the struct keeps its size.
static_assert(offsetof(amxqa_session_options, windows) == 24 &&
                  sizeof(amxqa_session_options) == 32,
              "amxqa_session_options never grows (amxqa.h)");

// Bump placement of 64-byte aligned sub-buffers with overflow checks. With a
// null base it only counts.
struct Bump {
  uint8_t* base = nullptr;
  size_t off = 0;
  bool overflow = false;

  template <class T>
  T* take(size_t count) {
    size_t bytes = 0, end = 0;
    if (__builtin_mul_overflow(count, sizeof(T), &bytes)) overflow = true;
    const size_t aligned = (off + (kSessionAlign - 1)) & ~(kSessionAlign - 1);
    if (aligned < off || __builtin_add_overflow(aligned, bytes, &end)) overflow = true;
    if (overflow) return nullptr;
    off = end;
    return base ? reinterpret_cast<T*>(base + aligned) : nullptr;
  }
};

size_t mul(size_t a, size_t b, bool& ovf) {
  size_t r = 0;
  if (__builtin_mul_overflow(a, b, &r)) ovf = true;
  return r;
}

bool model_usable(const amxqa_model* m) { return m && m->magic == kModelMagic; }

// LayerWeights::kind holds the schema's LayerKind.
bool is_swa(const LayerWeights& lw) { return lw.kind == static_cast<uint8_t>(fb::LayerKind::swa); }

bool has_moe(const amxqa_model& m) {
  for (uint32_t l = 0; l < m.n_layers; ++l)
    if (m.layers[l].moe) return true;
  return false;
}

// nullptr when the options are valid for the model, else why not.
const char* options_problem(const amxqa_model& m, const amxqa_session_options& o) {
  if (o.struct_size < kOptionsSizeV01) return "options.struct_size too small";
  if (std::isnan(o.no_answer_threshold) || o.no_answer_threshold == -INFINITY)
    return "options.no_answer_threshold is NaN or -INFINITY";
  if (o.max_passage_tokens > kMaxPassageTokensLimit) return "options.max_passage_tokens too large";
  if (o.max_question_tokens == 0 || o.max_question_tokens > kMaxQuestionTokensLimit)
    return "options.max_question_tokens out of range";
  if (o.max_answer_tokens == 0 || o.max_answer_tokens > kMaxAnswerTokensLimit)
    return "options.max_answer_tokens out of range";
  if (o.windows && o.window_overlap >= o.max_passage_tokens)
    return "options.window_overlap must be below max_passage_tokens";
  if (m.n_layers == 0 || m.n_layers > kMaxLayers) return "model n_layers out of range";
  for (uint32_t l = 0; l < m.n_layers; ++l)
    if (is_swa(m.layers[l]) && m.window == 0) return "model window is 0";
  if (has_moe(m) && (m.moe_route_block == 0 || m.moe_route_window == 0 || m.moe_top_k == 0 ||
                     m.moe_top_k > kMaxTopK || m.moe_top_k > m.moe_experts))
    return "model MoE routing sizes invalid";
  return nullptr;
}

Dims dims_of(const amxqa_model& m) {
  Dims d;
  d.d = m.d_model;
  d.H = m.n_heads;
  d.G = m.n_kv_heads;
  d.hd = m.head_dim;
  d.dk = m.lin_state;
  d.W = m.window;
  d.V = m.vocab_size;
  d.qkv_w = d.H * (d.hd > d.dk ? d.hd : d.dk);
  d.ff_w = m.d_ff > m.moe_d_ff ? m.d_ff : m.moe_d_ff;
  d.kv_cap = d.W + kPrefillRows;
  return d;
}

// Places (or, with s == nullptr, only measures) every sub-buffer.
void plan(const amxqa_model& m, const amxqa_session_options& o, Bump& b, amxqa_session* s) {
  const Dims d = dims_of(m);
  bool ovf = false;
  const size_t M = kPrefillRows;
  amxqa_session* self = b.take<amxqa_session>(1);
  (void)self;
  for (uint32_t l = 0; l < m.n_layers; ++l) {
    const LayerWeights& lw = m.layers[l];
    LayerState st;
    if (is_swa(lw)) {
      const size_t kv = mul(mul(d.kv_cap, d.G, ovf), d.hd, ovf);
      st.kv_k = b.take<float>(kv);
      st.kv_v = b.take<float>(kv);
    } else {
      st.lin_S = b.take<float>(mul(mul(d.H, d.dk, ovf), d.hd, ovf));
    }
    if (lw.moe) st.moe_ring = b.take<float>(mul(m.moe_route_window, d.d, ovf));
    if (s) s->layers[l] = st;
  }
  BlockBuffers k;
  k.ids = b.take<uint32_t>(M);
  k.x = b.take<float>(mul(M, d.d, ovf));
  k.u = b.take<float>(mul(M, d.d, ovf));
  k.q = b.take<float>(mul(M, d.qkv_w, ovf));
  k.k = b.take<float>(mul(M, d.qkv_w, ovf));
  k.v = b.take<float>(mul(M, d.qkv_w, ovf));
  k.att = b.take<float>(mul(M, mul(d.H, d.hd, ovf), ovf));
  k.hid = b.take<float>(mul(M, d.ff_w, ovf));
  k.tmp = b.take<float>(mul(M, d.d, ovf));
  k.z = b.take<float>(mul(M, d.H, ovf));
  k.probs = b.take<float>(d.W);
  k.stat = b.take<float>(d.d);
  k.router = b.take<float>(m.moe_experts);
  k.xn = b.take<float>(d.d);
  float* logits = b.take<float>(d.V);
  const size_t np = o.max_passage_tokens;
  uint32_t* pass_ids = b.take<uint32_t>(np);
  uint32_t* pass_off = b.take<uint32_t>(np);
  uint32_t* cand = b.take<uint32_t>(np);
  float* pass_u = m.start_pointer ? b.take<float>(mul(np, d.d, ovf)) : nullptr;
  float* pass_z = m.start_pointer ? b.take<float>(np + 1) : nullptr;
  float* na_pool = m.no_answer_head ? b.take<float>(np + 2 * size_t(d.d)) : nullptr;
  float* reader_buf = m.passage_reader ? b.take<float>(reader_floats(m, np, ovf)) : nullptr;
  uint32_t* allowed = b.take<uint32_t>(np + 2);
  uint32_t* q_ids = b.take<uint32_t>(o.max_question_tokens);
  uint32_t* ans_ids = b.take<uint32_t>(o.max_answer_tokens);
  uint8_t* seen = b.take<uint8_t>((size_t(d.V) + 7) / 8);
  // Top-k: a copy of what decoding can still read after prefill (forward_save).
  LayerState* snap = nullptr;
  if (o.max_top_k > 1 && o.extractive && m.start_pointer) {
    snap = b.take<LayerState>(m.n_layers);
    for (uint32_t l = 0; l < m.n_layers; ++l) {
      const LayerWeights& lw = m.layers[l];
      LayerState st;
      if (is_swa(lw)) {
        const size_t kv = mul(mul(d.W - 1, d.G, ovf), d.hd, ovf);
        st.kv_k = b.take<float>(kv);
        st.kv_v = b.take<float>(kv);
      } else {
        st.lin_S = b.take<float>(mul(mul(d.H, d.dk, ovf), d.hd, ovf));
      }
      if (lw.moe) st.moe_ring = b.take<float>(mul(m.moe_route_window, d.d, ovf));
      if (s) ::new (snap + l) LayerState(st);
    }
  }
  if (ovf) b.overflow = true;
  if (!s) return;
  s->snap = snap;
  s->dim = d;
  s->blk = k;
  s->logits = logits;
  s->pass_ids = pass_ids;
  s->pass_off = pass_off;
  s->cand = cand;
  s->pass_u = pass_u;
  s->pass_z = pass_z;
  s->na_pool = na_pool;
  s->reader_buf = reader_buf;
  s->allowed = allowed;
  s->q_ids = q_ids;
  s->ans_ids = ans_ids;
  s->seen = seen;
}

// Options with defaults filled in for NULL; only the fields this version
// knows. The ISA is read as raw bytes: an out-of-range enum value from a C
// caller must be rejected, not loaded as an amxqa_isa.
struct Effective {
  amxqa_session_options o;
  bool isa_known = true;
};

Effective effective_options(const amxqa_session_options* in) {
  Effective e;
  amxqa_session_options& o = e.o;
  amxqa_session_options_default(&o);
  if (!in) return e;
  if (in->struct_size < kOptionsSizeV01) {
    o.struct_size = in->struct_size;  // rejected by options_problem()
    return e;
  }
  o.max_passage_tokens = in->max_passage_tokens;
  o.max_question_tokens = in->max_question_tokens;
  o.max_answer_tokens = in->max_answer_tokens;
  static_assert(sizeof(amxqa_isa) == sizeof(uint32_t), "amxqa_isa is 32-bit");
  uint32_t raw_isa = 0;
  std::memcpy(&raw_isa, &in->isa, sizeof raw_isa);
  e.isa_known = raw_isa <= AMXQA_ISA_NEON_DOTPROD;
  if (e.isa_known) o.isa = static_cast<amxqa_isa>(raw_isa);
  o.extractive = in->extractive ? 1 : 0;
  o.use_vocab_mask = in->use_vocab_mask ? 1 : 0;
  o.whole_words = in->whole_words ? 1 : 0;
  // Fields added in 0.2 are read only from structs that have them.
  if (in->struct_size >= offsetof(amxqa_session_options, no_answer_threshold) + sizeof(float)) {
    o.override_threshold = in->override_threshold ? 1 : 0;
    if (o.override_threshold) o.no_answer_threshold = in->no_answer_threshold;
  }
  // The top-k / window fields (after 0.2.0) are in 0.1's reserved bytes.
  o.max_top_k = in->max_top_k ? in->max_top_k : 1;
  o.window_overlap = in->window_overlap;
  o.windows = in->windows ? 1 : 0;
  return e;
}

// nullptr when valid, else why not.
const char* effective_problem(const amxqa_model& m, const Effective& e) {
  if (!e.isa_known) return "options.isa unknown";
  return options_problem(m, e.o);
}

}  // namespace

void session_set_error(amxqa_session* s, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(s->error, sizeof s->error, fmt, ap);
  va_end(ap);
}

const char* session_last_error(const amxqa_session* s) { return s ? s->error : ""; }

}  // namespace amxqa

using namespace amxqa;

extern "C" {

AMXQA_API void amxqa_session_options_default(amxqa_session_options* o) {
  if (!o) return;
  std::memset(o, 0, sizeof *o);
  o->struct_size = sizeof *o;
  o->max_passage_tokens = 4096;
  o->max_question_tokens = 128;
  o->max_answer_tokens = 32;
  o->isa = AMXQA_ISA_AUTO;
  o->extractive = 1;
  o->use_vocab_mask = 1;
  o->whole_words = 1;
  o->max_top_k = 1;
}

AMXQA_API size_t amxqa_session_size(const amxqa_model* model,
                                    const amxqa_session_options* options) {
  if (!model_usable(model)) return 0;
  const Effective e = effective_options(options);
  if (effective_problem(*model, e)) return 0;
  const amxqa_session_options& o = e.o;
  Bump b;
  plan(*model, o, b, nullptr);
  if (b.overflow) return 0;
  return b.off;
}

AMXQA_API amxqa_status amxqa_session_init(const amxqa_model* model,
                                          const amxqa_session_options* options, void* mem,
                                          size_t size, amxqa_session** out_session) {
  if (out_session) *out_session = nullptr;
  if (!model || !mem || !out_session) {
    set_thread_error("amxqa_session_init: %s is NULL",
                     !model ? "model" : !mem ? "mem" : "out_session");
    return AMXQA_ERR_NULL_ARGUMENT;
  }
  if (!model_usable(model)) {
    set_thread_error("amxqa_session_init: model is not an open amxqa_model");
    return AMXQA_ERR_INVALID_ARGUMENT;
  }
  const Effective e = effective_options(options);
  const amxqa_session_options& o = e.o;
  if (const char* why = effective_problem(*model, e)) {
    set_thread_error("amxqa_session_init: %s", why);
    return AMXQA_ERR_INVALID_ARGUMENT;
  }
  if (reinterpret_cast<uintptr_t>(mem) % kSessionAlign != 0) {
    set_thread_error("amxqa_session_init: mem is not 64-byte aligned");
    return AMXQA_ERR_MISALIGNED;
  }
  Bump sizing;
  plan(*model, o, sizing, nullptr);
  if (sizing.overflow) {
    set_thread_error("amxqa_session_init: session size overflows size_t");
    return AMXQA_ERR_INVALID_ARGUMENT;
  }
  if (size < sizing.off) {
    set_thread_error("amxqa_session_init: workspace has %zu bytes, the session needs %zu", size,
                     sizing.off);
    return AMXQA_ERR_WORKSPACE_TOO_SMALL;
  }
  // AMXQA_MAX_ISA is read here, once per session, and never again.
  bool bad_env = false;
  char env[16];
  const amxqa_isa cap = max_isa_from_env(env, sizeof env, &bad_env);
  amxqa_isa isa = AMXQA_ISA_SCALAR;
  if (resolve_isa(o.isa, cap, &isa) != AMXQA_OK) {
    set_thread_error("amxqa_session_init: ISA %s is not available on this CPU/OS or build",
                     amxqa_isa_name(o.isa));
    return AMXQA_ERR_UNSUPPORTED_ISA;
  }
  const Kernels* kernels = kernels_for_isa(isa);
  if (!kernels) {
    set_thread_error("amxqa_session_init: no kernel table for ISA %s", amxqa_isa_name(isa));
    return AMXQA_ERR_UNSUPPORTED_ISA;
  }

  // Placement new only constructs (zeroes) the struct in caller memory.
  // cppcheck 2.10 misparses placement new (legacyUninitvar on `s`): false positive.
  // cppcheck-suppress legacyUninitvar
  auto* s = ::new (mem) amxqa_session();  // () value-initialises: zeroed
  Bump place;
  place.base = static_cast<uint8_t*>(mem);
  plan(*model, o, place, s);
  s->model = model;
  s->opt = o;
  s->opt_init = o;
  s->kernels = kernels;
  s->isa = isa;
  s->threshold_init = o.override_threshold ? o.no_answer_threshold : model->no_answer_threshold;
  s->no_answer_threshold = s->threshold_init;
  reader_init(s);  // MODEL.md "Passage reader": its RoPE rows, once
  // The de-duplication bitmap must start (and always be left) all clear.
  std::memset(s->seen, 0, (size_t(s->dim.V) + 7) / 8);
  s->n_sep = static_cast<uint32_t>(
      encode(model->tok, "\n\n", 2, s->sep_ids, nullptr, kMaxSepTokens));
  if (s->n_sep > kMaxSepTokens) {  // impossible for a 2-byte text; never index past the array
    set_thread_error("amxqa_session_init: separator encodes to %u tokens", s->n_sep);
    return AMXQA_ERR_INTERNAL;
  }
  if (bad_env)
    session_set_error(s, "AMXQA_MAX_ISA=\"%s\" not understood (amx|avx512|avx2|scalar); ignored",
                      env);
  s->magic = kSessionMagic;
  *out_session = s;
  return AMXQA_OK;
}

AMXQA_API void amxqa_session_finish(amxqa_session* s) {
  if (!s) return;
  if (s->magic == kSessionMagic && (s->isa == AMXQA_ISA_AMX || s->isa == AMXQA_ISA_AMX_EMULATED))
    amx_release_thread_state();
  s->magic = 0;
}

AMXQA_API amxqa_isa amxqa_session_isa(const amxqa_session* s) {
  return (s && s->magic == kSessionMagic) ? s->isa : AMXQA_ISA_AUTO;
}

AMXQA_API amxqa_status amxqa_session_set_threshold(amxqa_session* s, float threshold) {
  if (!s) return AMXQA_ERR_NULL_ARGUMENT;
  if (s->magic != kSessionMagic) return AMXQA_ERR_INVALID_ARGUMENT;
  if (threshold == -INFINITY) {
    session_set_error(s, "amxqa_session_set_threshold: -INFINITY would abstain on every passage");
    return AMXQA_ERR_INVALID_ARGUMENT;
  }
  s->no_answer_threshold = std::isnan(threshold) ? s->threshold_init : threshold;
  return AMXQA_OK;
}

// Per-answer options within what the session was sized for (amxqa.h).
AMXQA_API amxqa_status amxqa_session_set_options(amxqa_session* s,
                                                 const amxqa_session_options* options) {
  if (!s) return AMXQA_ERR_NULL_ARGUMENT;
  if (s->magic != kSessionMagic) return AMXQA_ERR_INVALID_ARGUMENT;
  if (!options) {
    s->opt = s->opt_init;
    return AMXQA_OK;
  }
  Effective e = effective_options(options);
  amxqa_session_options& o = e.o;
  const amxqa_session_options& init = s->opt_init;
  // The threshold has its own call; these fields keep the session's.
  o.override_threshold = init.override_threshold;
  o.no_answer_threshold = init.no_answer_threshold;
  const char* why = effective_problem(*s->model, e);
  if (!why) {
    why = o.isa != init.isa                         ? "options.isa differs from the session's"
          : o.extractive != init.extractive         ? "options.extractive differs from the session's"
          : o.use_vocab_mask != init.use_vocab_mask ? "options.use_vocab_mask differs from the session's"
          : o.max_passage_tokens > init.max_passage_tokens
              ? "options.max_passage_tokens is above the session's"
          : o.max_question_tokens > init.max_question_tokens
              ? "options.max_question_tokens is above the session's"
          : o.max_answer_tokens > init.max_answer_tokens
              ? "options.max_answer_tokens is above the session's"
          : o.max_top_k > init.max_top_k ? "options.max_top_k is above the session's"
                                         : nullptr;
  }
  if (why) {
    session_set_error(s, "amxqa_session_set_options: %s", why);
    return AMXQA_ERR_INVALID_ARGUMENT;
  }
  s->opt = o;
  return AMXQA_OK;
}

}  // extern "C"
