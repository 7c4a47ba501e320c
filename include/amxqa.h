/*
 * amxqa.h — libamxqa: extractive question answering on one CPU core.
 *
 * libamxqa answers a question about a passage with a span of that passage, or
 * says that the passage does not contain the answer. A tiny hybrid language
 * model (sliding-window + linear attention, block-routed MoE; see
 * schemas/MODEL.md) runs greedy decoding on one core. After set-up the library
 * allocates nothing: the caller owns every byte.
 *
 * ---------------------------------------------------------------------------
 * Complete usage example (C99, no malloc anywhere). The default model's
 * session needs about 5.6 MB at the default 4,096 passage tokens, so the arena
 * is sized from amxqa_session_size() with room to spare:
 *
 *   #include <amxqa.h>
 *   #include <stdio.h>
 *   #include <string.h>
 *   static unsigned char arena[16u << 20] __attribute__((aligned(64)));
 *   static unsigned char model_mem[AMXQA_MODEL_STORAGE_BYTES] __attribute__((aligned(64)));
 *
 *   int ask(const void* file, size_t file_len, const char* q, const char* p) {
 *     amxqa_model* model;
 *     amxqa_status st = amxqa_model_open(file, file_len, model_mem, &model);
 *     if (st != AMXQA_OK) { fprintf(stderr, "%s\n", amxqa_last_error(NULL)); return 1; }
 *
 *     amxqa_session_options opt;
 *     amxqa_session_options_default(&opt);        // 4,096 passage tokens, 32 answer tokens
 *     size_t need = amxqa_session_size(model, &opt);
 *     if (need == 0 || need > sizeof arena) {
 *       fprintf(stderr, "session needs %zu bytes, arena has %zu\n", need, sizeof arena);
 *       return 1;
 *     }
 *     amxqa_session* s;
 *     st = amxqa_session_init(model, &opt, arena, sizeof arena, &s);
 *     if (st != AMXQA_OK) { fprintf(stderr, "%s\n", amxqa_last_error(NULL)); return 1; }
 *
 *     char answer[256];
 *     amxqa_answer_info info = amxqa_answer_info_init();
 *     st = amxqa_answer(s, q, strlen(q), p, strlen(p), answer, sizeof answer, &info);
 *     if (st != AMXQA_OK) fprintf(stderr, "%s: %s\n", amxqa_status_name(st), amxqa_last_error(s));
 *     else if (info.abstained) printf("(no answer, p=%.2f)\n", info.probability);
 *     else printf("%s (p=%.2f)\n", answer, info.probability);
 *     amxqa_session_finish(s);
 *     return st == AMXQA_OK ? 0 : 1;
 *   }
 *
 * ---------------------------------------------------------------------------
 * Memory contract
 *   - amxqa_model_open() makes a *view*: it never copies the model and never
 *     allocates. The caller keeps the model bytes alive and unchanged until
 *     the last session using it is finished. Bytes must be 64-byte aligned
 *     (mmap'd files and aligned_alloc'd buffers are).
 *   - The model handle itself lives in AMXQA_MODEL_STORAGE_BYTES of caller
 *     memory passed to amxqa_model_open(); there is no hidden heap.
 *   - amxqa_session_size() + amxqa_session_init() place a session in memory
 *     the caller provides. After that, no libamxqa function calls malloc,
 *     new, mmap or any other allocator, for any input size.
 *
 * A model file changed after open
 *   amxqa_model_open() checks the bytes once and then keeps pointers into
 *   them; nothing is checked again. Keep the file unchanged while any session
 *   uses it. Weight bytes rewritten under a shared mapping are silently used
 *   by the next answer (there is no checksum). A file truncated below its
 *   mapped length raises SIGBUS on the next read of the lost pages, which no
 *   library can catch. To update a model, write a new file, rename(2) it into
 *   place (existing mappings keep the old contents), then open it again; or
 *   load the file into an aligned buffer instead of mapping it.
 *
 * Threading contract
 *   - The library has no global mutable state (apart from a once-only,
 *     thread-safe request for AMX permission on Linux).
 *   - A model is immutable after open: any number of threads may share it.
 *   - A session is single-threaded: use one session per thread.
 *
 * Structs that grow
 *   Every struct crossing this ABI starts with `uint32_t struct_size`, set by
 *   the caller to sizeof the struct it was compiled with (the T_init()
 *   helpers, e.g. amxqa_answer_info_init(), and amxqa_session_options_default()
 *   do it). New fields are only ever
 *   appended. The library reads an input struct's first struct_size bytes
 *   (later fields take their defaults) and writes at most struct_size bytes of
 *   an output struct, so a program built against an older header keeps
 *   working with a newer library. A struct_size smaller than the struct's
 *   first version is AMXQA_ERR_INVALID_ARGUMENT. amxqa_session_options is
 *   the exception: amxqa_session_options_default() fills a struct whose size
 *   it cannot know, so it stays 32 bytes for good (new options take its
 *   reserved bytes, which every older caller has zeroed).
 *
 * Input contract
 *   - Questions and passages are byte strings. The tokenizer is byte-level, so
 *     any bytes are answered: invalid UTF-8 and embedded NUL bytes are valid
 *     input and are never rejected for their content. An answer is always the
 *     exact bytes of a span of the passage.
 *   - Untrusted model files are fully verified at open (FlatBuffers verifier
 *     plus semantic checks of every size, count and index the runtime uses).
 *     There is no unverified load path. A bad file gets a status code and a
 *     message naming the field, never a crash.
 */
#ifndef AMXQA_H
#define AMXQA_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Visibility -------------------------------------------------------- */
#if defined(AMXQA_STATIC_DEFINE)
#define AMXQA_API
#elif defined(_WIN32)
#if defined(AMXQA_BUILDING)
#define AMXQA_API __declspec(dllexport)
#else
#define AMXQA_API __declspec(dllimport)
#endif
#else
#define AMXQA_API __attribute__((visibility("default")))
#endif

/* ---- Versions ---------------------------------------------------------- */
#define AMXQA_VERSION_MAJOR 0
#define AMXQA_VERSION_MINOR 2
#define AMXQA_VERSION_PATCH 0
#define AMXQA_VERSION_STR2_(x) #x
#define AMXQA_VERSION_STR_(x) AMXQA_VERSION_STR2_(x)
/* "MAJOR.MINOR.PATCH" of this header, e.g. "0.2.0". */
#define AMXQA_VERSION_STRING                                                     \
  AMXQA_VERSION_STR_(AMXQA_VERSION_MAJOR) "." AMXQA_VERSION_STR_(AMXQA_VERSION_MINOR) "." \
  AMXQA_VERSION_STR_(AMXQA_VERSION_PATCH)
#define AMXQA_VERSION_NUMBER \
  (AMXQA_VERSION_MAJOR * 10000 + AMXQA_VERSION_MINOR * 100 + AMXQA_VERSION_PATCH)

/* The model-file format version this library reads. Files with a larger
 * format version are refused with AMXQA_ERR_MODEL_VERSION. */
#define AMXQA_FORMAT_VERSION 1

/* Returns AMXQA_VERSION_NUMBER of the library actually linked. Never fails. */
AMXQA_API unsigned amxqa_version_number(void);
/* Returns "MAJOR.MINOR.PATCH" of the library actually linked; static storage. */
AMXQA_API const char* amxqa_version(void);

/* ---- Status codes: values are pinned forever --------------------------- */
typedef enum amxqa_status {
  AMXQA_OK = 0,
  /* caller errors */
  AMXQA_ERR_NULL_ARGUMENT = 1,     /* a required pointer was NULL */
  AMXQA_ERR_INVALID_ARGUMENT = 2,  /* an option is out of range */
  AMXQA_ERR_WORKSPACE_TOO_SMALL = 3, /* size < amxqa_session_size() */
  AMXQA_ERR_MISALIGNED = 4,        /* buffer not 64-byte aligned */
  AMXQA_ERR_EMPTY_QUESTION = 5,    /* question has zero bytes */
  AMXQA_ERR_PASSAGE_TOO_LONG = 6,  /* passage needs more tokens than the session allows */
  AMXQA_ERR_QUESTION_TOO_LONG = 7, /* question needs more tokens than the session allows */
  AMXQA_ERR_OUTPUT_TOO_SMALL = 8,  /* answer bytes do not fit in `out`; span still reported */
  AMXQA_ERR_UNSUPPORTED_ISA = 9,   /* a forced ISA is not available on this CPU/OS */
  AMXQA_ERR_CANCELLED = 10,        /* the streaming callback asked to stop */
  /* model-file errors: each names the failed field in the message */
  AMXQA_ERR_MODEL_TRUNCATED = 20,  /* too small to hold a model */
  AMXQA_ERR_MODEL_IDENTIFIER = 21, /* not an .amxqa file (file_identifier) */
  AMXQA_ERR_MODEL_VERSION = 22,    /* format version newer than this library */
  AMXQA_ERR_MODEL_CORRUPT = 23,    /* FlatBuffers verifier rejected the file */
  AMXQA_ERR_MODEL_ARCH = 24,       /* an architecture field is zero, too big or inconsistent */
  AMXQA_ERR_MODEL_TENSOR = 25,     /* a tensor is missing, mis-shaped, mis-typed or out of bounds */
  AMXQA_ERR_MODEL_ALIGNMENT = 26,  /* tensor data not 64-byte aligned */
  AMXQA_ERR_MODEL_TOKENIZER = 27,  /* tokenizer pieces/merges invalid */
  AMXQA_ERR_MODEL_VOCAB_MASK = 28, /* vocabulary mask length or content invalid */
  AMXQA_ERR_MODEL_SPECIALS = 29,   /* special token ids out of range or duplicated */
  AMXQA_ERR_MODEL_MOE = 30,        /* MoE E, k, layer set or routing sizes invalid */
  AMXQA_ERR_MODEL_LAYOUT = 31,     /* packed layout tag does not fit the tensor shape */
  AMXQA_ERR_MODEL_OVERFLOW = 32,   /* a size computed from the file overflows */
  AMXQA_ERR_INTERNAL = 99
} amxqa_status;

/* Returns a constant, stable name such as "AMXQA_ERR_MODEL_VERSION" for any
 * value (unknown values give "AMXQA_ERR_UNKNOWN"). Never returns NULL. */
AMXQA_API const char* amxqa_status_name(amxqa_status status);

/* ---- Struct helpers ---------------------------------------------------- */
/* AMXQA_STRUCT_INIT(T) defines `T T_init(void)`: a zeroed T whose
 * struct_size is sizeof(T) ("Structs that grow" above). */
#ifdef __cplusplus
#define AMXQA_ZERO_INIT_ {}
#else
#define AMXQA_ZERO_INIT_ {0}
#endif
#define AMXQA_STRUCT_INIT(T)              \
  static inline T T##_init(void) {        \
    T v = AMXQA_ZERO_INIT_;               \
    v.struct_size = (uint32_t)sizeof v;   \
    return v;                             \
  }

/* ---- Opaque handles ---------------------------------------------------- */
typedef struct amxqa_model amxqa_model;
typedef struct amxqa_session amxqa_session;

/* ---- Instruction sets --------------------------------------------------
 * For a model with bf16 or int8 weights (every model amxqa-train exports;
 * the default model is int8) every ISA computes each weight product with the
 * same bits: bf16 by the AMX tiles' arithmetic (activations rounded to bf16,
 * sums in 32-column chunks, denormals flushed;
 * runtime/kernels/canonical_bf16.h), int8 by the AMX-INT8 tiles' (each
 * activation row quantised to int8 with one absmax scale, exact int32 sums;
 * runtime/kernels/canonical_i8.h), and every
 * other product and sum of the forward pass and the decoder in one canonical
 * order (runtime/kernels/kernels.h: attention's two f32 products, softmax,
 * exp, pointer scores, the lin decay and MoE router rows) or in portable
 * code that every ISA shares, so the answer bytes and their confidences do
 * not depend on the ISA (README, "The same answer on every backend").
 * Models whose weight matrices are f32 are outside the promise. */
typedef enum amxqa_isa {
  AMXQA_ISA_AUTO = 0,   /* best available, capped by AMXQA_MAX_ISA if set */
  AMXQA_ISA_SCALAR = 1, /* portable C++ reference: the oracle */
  AMXQA_ISA_AVX2 = 2,   /* AVX2 + FMA */
  AMXQA_ISA_AVX512 = 3, /* AVX-512F/BW/VL/DQ; int8 weights on VNNI */
  AMXQA_ISA_AMX = 4,    /* AMX tiles for prefill (M >= 16), AVX-512 for decode */
  AMXQA_ISA_AMX_EMULATED = 5, /* AMX kernels on the portable tile emulator (tests) */
  AMXQA_ISA_NEON = 6,   /* aarch64 Advanced SIMD (every aarch64 CPU) */
  AMXQA_ISA_NEON_DOTPROD = 7 /* NEON, int8 weights on SDOT (Armv8.2-A dot product) */
} amxqa_isa;
/* The order of preference is per architecture: x86-64 AMX > AVX512 > AVX2 >
 * SCALAR, aarch64 NEON_DOTPROD > NEON > SCALAR. A cap (AMXQA_MAX_ISA, the
 * options' isa) of the other architecture's family caps nothing but
 * AMX_EMULATED, which AUTO never picks; SCALAR caps both. */

/* Name of an ISA value: "auto", "scalar", "avx2", "avx512", "amx", "amx-emulated",
 * "neon", "neon-dotprod". */
AMXQA_API const char* amxqa_isa_name(amxqa_isa isa);

/* CPU / OS capability report. Filled by amxqa_cpu_query(); never allocates. */
typedef struct amxqa_cpu_info {
  uint32_t struct_size; /* sizeof(amxqa_cpu_info): use amxqa_cpu_info_init() */
  char vendor[16];
  char model_name[64];
  uint8_t has_avx2_fma;
  uint8_t has_avx512; /* F, BW, VL, DQ with OS (XCR0) support */
  uint8_t has_avx512_bf16;
  uint8_t has_avx512_vnni;
  uint8_t has_amx;    /* every AMX check passed, permission granted */
  amxqa_isa best;     /* the ISA AMXQA_ISA_AUTO resolves to (after AMXQA_MAX_ISA) */
  char amx_reason[96];/* e.g. "AMX: not used: CPU lacks AMX-TILE" or "AMX: used" */
  char max_isa_env[16]; /* value of AMXQA_MAX_ISA seen, "" if unset */
  /* aarch64 (all zero and "" elsewhere): from the kernel's HWCAP (getauxval),
   * which says what the CPU has and the OS enables. */
  uint8_t has_neon;         /* Advanced SIMD (HWCAP_ASIMD) */
  uint8_t has_neon_dotprod; /* SDOT/UDOT (HWCAP_ASIMDDP) */
  char arm_reason[96]; /* e.g. "NEON: used; SDOT: not used: no dot product (HWCAP_ASIMDDP)" */
} amxqa_cpu_info;
AMXQA_STRUCT_INIT(amxqa_cpu_info)

/* Fills `info`. The first call may request AMX permission from the OS
 * (Linux arch_prctl), once per process, thread-safely. */
AMXQA_API amxqa_status amxqa_cpu_query(amxqa_cpu_info* info);

/* ---- Errors ------------------------------------------------------------ */
/* Message for the last failure of `session`, or, with NULL, for the last
 * failure of amxqa_model_open/amxqa_session_init on the calling thread
 * (thread-local, static storage). Never NULL; "" when there was none. */
AMXQA_API const char* amxqa_last_error(const amxqa_session* session);

/* ---- Model ------------------------------------------------------------- */
/* Opens a verified, zero-copy view of a model file held in `data` (for
 * example an mmap of the file, or an aligned buffer). `data` must be
 * 64-byte aligned and stay alive and unchanged while the model is in use.
 *
 * The model handle itself is placed in `storage`, which must be at least
 * AMXQA_MODEL_STORAGE_BYTES bytes and 64-byte aligned (NULL gives
 * AMXQA_ERR_NULL_ARGUMENT). There is no hidden heap.
 *
 * Returns AMXQA_OK, or a model error whose message (amxqa_last_error(NULL))
 * names the failed field. Never allocates, never reads outside [data, data+len). */
#define AMXQA_MODEL_STORAGE_BYTES 16384
AMXQA_API amxqa_status amxqa_model_open(const void* data, size_t len, void* storage,
                                        amxqa_model** out_model);

/* Runs every validation check again and reports each failure (not only the
 * first) through `report`, one call per failed check. Returns AMXQA_OK when
 * all pass, else the status of the first failure. `report` may be NULL. */
typedef void (*amxqa_report_fn)(void* user, amxqa_status status, const char* message);
AMXQA_API amxqa_status amxqa_model_verify(const void* data, size_t len, amxqa_report_fn report,
                                          void* user);

/* Architecture summary of an open model. All fields are filled. */
typedef struct amxqa_model_info {
  uint32_t struct_size;              /* sizeof(amxqa_model_info): use amxqa_model_info_init() */
  uint32_t format_version;
  uint32_t d_model, n_layers, n_heads, n_kv_heads, head_dim, window, lin_state, d_ff;
  uint32_t moe_experts, moe_top_k, moe_d_ff, moe_route_block, moe_route_window, moe_layer_count;
  uint32_t vocab_size, vocab_masked; /* tokens the vocabulary mask forbids */
  char layer_kinds[64];              /* e.g. "lin swa swa lin swa lin" */
  char weight_dtype[8];              /* "f32", "bf16" or "int8" (of the largest tensor) */
  uint64_t weight_bytes, param_count, active_param_count;
  char trainer_version[32];
  char recipe[64];
  uint64_t tokens_seen;
  /* The model's calibrated no-answer threshold (schemas/MODEL.md "No-answer
   * decision"); 0 when the file carries none. */
  float no_answer_threshold;
  uint8_t calibrated;                /* 1: the file carries a calibration */
  char calibration_method[63];       /* how it was chosen, e.g. "best F1 on dev-v2.0-calib" */
  /* Bits per stored weight of the int8 matrices: 7 when every one is 7-bit
   * (schemas/MODEL.md "7-bit weights": each weight in [-64, 63]), else 8;
   * 0 when the model has no int8 matrix. */
  uint32_t weight_bits;
} amxqa_model_info;
AMXQA_STRUCT_INIT(amxqa_model_info)
AMXQA_API amxqa_status amxqa_model_get_info(const amxqa_model* model, amxqa_model_info* info);

/* Provenance scores stored in the model ("squad_dev_em", ...). Returns the
 * number of scores; fills at most `cap` names/values. */
AMXQA_API size_t amxqa_model_scores(const amxqa_model* model, const char** names, float* values,
                                    size_t cap);

/* ---- Session ----------------------------------------------------------- */
typedef struct amxqa_session_options {
  uint32_t struct_size;          /* sizeof(amxqa_session_options); for ABI growth */
  uint32_t max_passage_tokens;   /* default 4096 */
  uint32_t max_question_tokens;  /* default 128 */
  uint32_t max_answer_tokens;    /* default 32 */
  amxqa_isa isa;                 /* default AMXQA_ISA_AUTO; a cap, also via AMXQA_MAX_ISA */
  uint8_t extractive;            /* default 1: answers are passage spans; 0: free mode */
  uint8_t use_vocab_mask;        /* default 1: the model's static vocabulary mask applies */
  uint8_t whole_words;           /* default 1 (extractive): a span starts and ends on word
                                    boundaries, never inside a word (schemas/MODEL.md) */
  uint8_t override_threshold;    /* default 0: the model's no-answer threshold applies;
                                    1: no_answer_threshold below does (added in 0.2) */
  /* The next three sit in what was `uint8_t reserved[4]` (zero from
   * amxqa_session_options_default), added after 0.2.0. The struct does not
   * grow: amxqa_session_options_default() cannot know the caller's sizeof, so
   * a larger struct would be overrun in programs built against 0.2. */
  uint8_t windows;               /* default 0: a passage over max_passage_tokens is
                                    AMXQA_ERR_PASSAGE_TOO_LONG; 1 (extractive mode): it is
                                    answered in overlapping windows ("Long passages" below) */
  uint8_t max_top_k;             /* default 1 (0 is taken as 1): the most spans
                                    amxqa_answer_topk() returns. Above 1 on a start-pointer
                                    model the session also keeps a copy of the decoding
                                    state after prefill (amxqa_session_size) */
  uint16_t window_overlap;       /* default 0: tokens consecutive passage windows share
                                    (with `windows`); must be < max_passage_tokens */
  float no_answer_threshold;     /* abstain iff no_answer_margin > this; +INFINITY never
                                    abstains on a scored passage. NaN or -INFINITY is
                                    AMXQA_ERR_INVALID_ARGUMENT. (added in 0.2) */
} amxqa_session_options;

/* Fills the defaults above, struct_size included. Never fails. Options
 * structs of 0.1's size (28 bytes) are still accepted. */
AMXQA_API void amxqa_session_options_default(amxqa_session_options* options);

/* Bytes a session needs for `options` (NULL: defaults), or 0 if the options
 * are invalid for this model. The decoding state is constant in passage
 * length; only the per-passage-token buffers grow with max_passage_tokens:
 * 16 bytes per token, plus 4·(d_model + 1) for a start-pointer model (its
 * normed passage states and step-1 scores): 1,044 bytes per token for the
 * default model (d_model 256). max_top_k > 1 on a start-pointer model adds a
 * copy of the decoding state, also constant in passage length: per swa layer
 * 2·(window − 1)·n_kv_heads·head_dim floats, per lin layer
 * n_heads·lin_state·head_dim, per MoE layer moe_route_window·d_model. Windows
 * add nothing. */
AMXQA_API size_t amxqa_session_size(const amxqa_model* model,
                                    const amxqa_session_options* options);

/* Places a session in `mem` (64-byte aligned, `size` >= amxqa_session_size).
 * Never allocates. Fails with AMXQA_ERR_WORKSPACE_TOO_SMALL when size is
 * short by even one byte, AMXQA_ERR_UNSUPPORTED_ISA when a forced ISA is
 * missing. */
AMXQA_API amxqa_status amxqa_session_init(const amxqa_model* model,
                                          const amxqa_session_options* options, void* mem,
                                          size_t size, amxqa_session** out_session);

/* Releases per-thread hardware state (AMX tile configuration). The memory
 * stays the caller's; nothing is freed. Safe to call twice. */
AMXQA_API void amxqa_session_finish(amxqa_session* session);

/* The ISA the session actually runs. */
AMXQA_API amxqa_isa amxqa_session_isa(const amxqa_session* session);

/* Sets the no-answer threshold for the session's later answers (a server's
 * per-request threshold); NaN restores the one the session was made with.
 * -INFINITY is AMXQA_ERR_INVALID_ARGUMENT. Never allocates. */
AMXQA_API amxqa_status amxqa_session_set_threshold(amxqa_session* session, float threshold);

/* Changes the options of the session's later answers (a server's per-request
 * options; added after 0.2.0): whole_words, windows and window_overlap, and
 * max_passage_tokens, max_question_tokens, max_answer_tokens and max_top_k up
 * to the values the session was made with. isa, extractive and use_vocab_mask
 * must equal the session's; the threshold fields are not read (that is
 * amxqa_session_set_threshold). NULL restores the options the session was
 * made with. Options that are invalid or do not fit the session are
 * AMXQA_ERR_INVALID_ARGUMENT, with a message naming the field, and change
 * nothing. Never allocates. */
AMXQA_API amxqa_status amxqa_session_set_options(amxqa_session* session,
                                                 const amxqa_session_options* options);

/* ---- Answering --------------------------------------------------------- */
typedef struct amxqa_answer_info {
  uint32_t struct_size;    /* sizeof(amxqa_answer_info): use amxqa_answer_info_init() */
  uint64_t span_begin;     /* answer = passage[span_begin, span_end) */
  uint64_t span_end;
  uint8_t abstained;       /* 1: the passage does not contain the answer */
  uint8_t stopped_on_eot;  /* 1: decoding ended with EOT (not the token cap) */
  uint8_t reserved[2];
  float mean_logprob;      /* mean log-probability of the emitted tokens */
  uint32_t question_tokens, passage_tokens, answer_tokens;
  uint64_t prefill_ns, decode_ns;
  amxqa_isa isa;           /* backend that ran */
  /* The no-answer decision (schemas/MODEL.md "No-answer decision"). */
  float probability;       /* 0..1: the model's probability of the answer it gave (for an
                              abstention, of "no answer"), threshold applied */
  float no_answer_margin;  /* no-answer score minus the best start's score, in nats:
                              abstained iff margin > no_answer_threshold */
  float no_answer_threshold; /* the threshold this answer used */
  /* Added after 0.2.0 (a 0.2-sized struct, 80 bytes, is filled up to there): */
  uint32_t windows;        /* passage windows answered: 1 for a passage that fits (0 when
                              the call failed before answering), more with `windows` on */
  uint32_t window;         /* the window the answer (or, when every window abstained,
                              the reported abstention) came from, counted from 0 */
} amxqa_answer_info;
AMXQA_STRUCT_INIT(amxqa_answer_info)

/* Answers `question` about `passage`. The answer text (the exact passage
 * bytes of the span, never re-detokenized, widened to whole UTF-8 characters,
 * leading/trailing white space trimmed) is written to `out` NUL-terminated; an abstention writes "".
 * In free mode (options.extractive == 0) the detokenized generation is
 * written and span_begin == span_end == 0. An extractive answer is never
 * empty: a span that is only white space (the model pointed at a space) is
 * reported as an abstention (abstained = 1, span 0, 0, probability one minus
 * that span's), whatever the threshold.
 *
 * Returns AMXQA_OK; AMXQA_ERR_EMPTY_QUESTION; AMXQA_ERR_PASSAGE_TOO_LONG /
 * AMXQA_ERR_QUESTION_TOO_LONG; AMXQA_ERR_OUTPUT_TOO_SMALL (info still
 * filled, `out` holds a truncated NUL-terminated prefix). On every other
 * error `out` is "" (when outcap > 0). An empty passage is
 * valid and is answered by abstaining. With the session option `windows`, a
 * passage over max_passage_tokens is answered in windows instead of being
 * AMXQA_ERR_PASSAGE_TOO_LONG ("Long passages" below). Never allocates.
 * `info` may be NULL. */
AMXQA_API amxqa_status amxqa_answer(amxqa_session* session, const char* question, size_t qlen,
                                    const char* passage, size_t plen, char* out, size_t outcap,
                                    amxqa_answer_info* info);

/* Streaming variant: `on_token` is called once per emitted answer token with
 * the bytes it adds (a passage slice in extractive mode; byte-level tokens may
 * split a UTF-8 character, while info's final span never does). Returning non-zero
 * from the callback stops decoding with AMXQA_ERR_CANCELLED. */
typedef int (*amxqa_token_fn)(void* user, const char* bytes, size_t len);
AMXQA_API amxqa_status amxqa_answer_stream(amxqa_session* session, const char* question,
                                           size_t qlen, const char* passage, size_t plen,
                                           amxqa_token_fn on_token, void* user,
                                           amxqa_answer_info* info);

/* ---- Top-k spans and long passages (added after 0.2.0) -----------------
 *
 * What the field's QA APIs return (Hugging Face's question-answering pipeline
 * with top_k, TF Lite's BertQuestionAnswerer): several candidate spans, each
 * with a score, and passages longer than the model's window answered in
 * overlapping windows (schemas/MODEL.md "Top-k spans and windows").
 *
 * Candidates. A start-pointer model (arch.start_pointer in the file;
 * schemas/MODEL.md "Start pointer") scores every allowed start position at step 1. The k best
 * allowed starts (ties: the earlier position) are each decoded greedily to EOT
 * from the state right after prefill, exactly as amxqa_answer decodes the best
 * one. A model without the start pointer gives only the greedy answer (at most
 * one span whatever k is).
 *
 * Score. A span's score is its probability as amxqa_answer_info.probability
 * defines it (MODEL.md "No-answer decision"): its start's softmax weight over
 * the allowed starts and the threshold-shifted ABSTAIN, times the probability
 * of each later token and of the closing EOT (with an end pointer,
 * arch.end_pointer: times the end's softmax weight over the allowed ends,
 * MODEL.md "End pointer"). So scores are comparable with
 * each other, across windows, and with info.probability; they lie in [0, 1].
 *
 * Order. spans[0] is always the answer amxqa_answer gives for the same input
 * (same bytes, same score == info->probability). spans[1 …] are the other
 * distinct spans by non-increasing score. A later span may score higher than
 * spans[0]: greedy decoding commits to the best start, and another start's
 * continuation can be more certain; sort by score for a pure score ranking.
 * Spans are distinct by [begin, end); empty spans (a start of only white
 * space) are left out of spans[1 …].
 *
 * Long passages (option `windows`). A passage that needs more than
 * max_passage_tokens tokens is cut into windows of at most max_passage_tokens
 * tokens, each sharing at least window_overlap tokens with the previous one;
 * window edges are moved back (by at most a quarter window, 64 tokens) to
 * token boundaries that are not inside a word or a UTF-8 character. Every
 * window is answered as a passage of its own; the answer is the best
 * non-abstaining window's answer by score, and the call abstains only if every
 * window does (then info reports the window whose abstention had the smallest
 * margin). Offsets always index the whole passage; info->passage_tokens is the
 * whole passage's count, prefill_ns and decode_ns are summed over windows.
 * Each window costs a full prefill. Windows apply to amxqa_answer and
 * amxqa_answer_topk in extractive mode; amxqa_answer_stream and free mode never
 * window (a passage over the cap stays AMXQA_ERR_PASSAGE_TOO_LONG there). */
typedef struct amxqa_span {
  uint32_t struct_size; /* sizeof(amxqa_span): set spans[0]'s with amxqa_span_init() */
  float score;          /* 0..1: the span's probability (see above) */
  uint64_t begin, end;  /* the span is passage[begin, end), as info's span_begin/end */
  uint32_t window;      /* the passage window it came from (0 without windows) */
  uint32_t answer_tokens; /* tokens decoded for it */
} amxqa_span;
AMXQA_STRUCT_INIT(amxqa_span)

/* Answers as amxqa_answer does, and writes up to min(k, options.max_top_k)
 * candidate spans to `spans`, best first (see above); *n_spans is how many.
 * An abstention (info->abstained) gives *n_spans = 0. The answer text is not
 * copied: a span's bytes are passage[begin, end).
 *
 * `spans` is an array of k structs of the caller's sizeof(amxqa_span): the
 * library reads spans[0].struct_size as the array's stride ("Structs that
 * grow"; set it with amxqa_span_init()) and writes at most that many bytes of
 * each element, every element's struct_size included. Elements past *n_spans
 * are left as they were.
 *
 * Returns AMXQA_OK; AMXQA_ERR_NULL_ARGUMENT (spans, n_spans, or a question or
 * passage pointer with a non-zero length, is NULL); AMXQA_ERR_INVALID_ARGUMENT
 * (k == 0, spans[0].struct_size smaller than this sizeof(amxqa_span) or not a
 * multiple of 8, free mode); and amxqa_answer's other codes, without
 * AMXQA_ERR_OUTPUT_TOO_SMALL. *n_spans is 0 on every error (when n_spans is
 * not NULL). Never allocates. `info` may be NULL. */
AMXQA_API amxqa_status amxqa_answer_topk(amxqa_session* session, const char* question,
                                         size_t qlen, const char* passage, size_t plen,
                                         amxqa_span* spans, size_t k, size_t* n_spans,
                                         amxqa_answer_info* info);

/* ---- Tokenizer (exposed for tools and tests) --------------------------- */
/* Encodes `text` with the model's byte-level BPE into `ids` (capacity
 * `cap`). Returns the number of tokens; if it exceeds `cap`, only `cap` were
 * written. Never allocates; any bytes encode. */
AMXQA_API size_t amxqa_tokenize(const amxqa_model* model, const char* text, size_t len,
                                uint32_t* ids, size_t cap);
/* Bytes of one token id (not NUL-terminated); NULL and *len = 0 if out of range. */
AMXQA_API const char* amxqa_token_bytes(const amxqa_model* model, uint32_t id, size_t* len);

#ifdef __cplusplus
}
#endif
#endif /* AMXQA_H */
