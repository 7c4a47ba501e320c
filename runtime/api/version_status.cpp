// version_status.cpp — the API functions that describe the library itself:
// versions, status and ISA names, and the thread-local error message that
// amxqa_last_error(NULL) returns.
#include <cstdarg>
#include <cstdio>
#include <cstring>

#include "amxqa.h"
#include "api/errors.h"

namespace amxqa {
namespace {
// A C caller may pass any int in an enum parameter: read it as an integer so
// that no out-of-range enum value is ever loaded (UBSan -fsanitize=enum).
template <typename Enum>
int enum_bits(const Enum& e) {
  static_assert(sizeof(Enum) == sizeof(int), "C enums are int-sized here");
  int v;
  std::memcpy(&v, &e, sizeof v);
  return v;
}

// One message per thread: model_open and session_init may run concurrently
// on different threads, and neither may allocate.
thread_local char t_error[512];
}  // namespace

void set_thread_error(const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(t_error, sizeof t_error, fmt, ap);
  va_end(ap);
}

const char* thread_error() { return t_error; }

}  // namespace amxqa

extern "C" {

AMXQA_API unsigned amxqa_version_number(void) { return AMXQA_VERSION_NUMBER; }

AMXQA_API const char* amxqa_version(void) {
  return AMXQA_VERSION_STRING;
}

AMXQA_API const char* amxqa_status_name(amxqa_status status) {
  switch (amxqa::enum_bits(status)) {
#define AMXQA_NAME(s) \
  case s:             \
    return #s;
    AMXQA_NAME(AMXQA_OK)
    AMXQA_NAME(AMXQA_ERR_NULL_ARGUMENT)
    AMXQA_NAME(AMXQA_ERR_INVALID_ARGUMENT)
    AMXQA_NAME(AMXQA_ERR_WORKSPACE_TOO_SMALL)
    AMXQA_NAME(AMXQA_ERR_MISALIGNED)
    AMXQA_NAME(AMXQA_ERR_EMPTY_QUESTION)
    AMXQA_NAME(AMXQA_ERR_PASSAGE_TOO_LONG)
    AMXQA_NAME(AMXQA_ERR_QUESTION_TOO_LONG)
    AMXQA_NAME(AMXQA_ERR_OUTPUT_TOO_SMALL)
    AMXQA_NAME(AMXQA_ERR_UNSUPPORTED_ISA)
    AMXQA_NAME(AMXQA_ERR_CANCELLED)
    AMXQA_NAME(AMXQA_ERR_MODEL_TRUNCATED)
    AMXQA_NAME(AMXQA_ERR_MODEL_IDENTIFIER)
    AMXQA_NAME(AMXQA_ERR_MODEL_VERSION)
    AMXQA_NAME(AMXQA_ERR_MODEL_CORRUPT)
    AMXQA_NAME(AMXQA_ERR_MODEL_ARCH)
    AMXQA_NAME(AMXQA_ERR_MODEL_TENSOR)
    AMXQA_NAME(AMXQA_ERR_MODEL_ALIGNMENT)
    AMXQA_NAME(AMXQA_ERR_MODEL_TOKENIZER)
    AMXQA_NAME(AMXQA_ERR_MODEL_VOCAB_MASK)
    AMXQA_NAME(AMXQA_ERR_MODEL_SPECIALS)
    AMXQA_NAME(AMXQA_ERR_MODEL_MOE)
    AMXQA_NAME(AMXQA_ERR_MODEL_LAYOUT)
    AMXQA_NAME(AMXQA_ERR_MODEL_OVERFLOW)
    AMXQA_NAME(AMXQA_ERR_INTERNAL)
#undef AMXQA_NAME
  }
  return "AMXQA_ERR_UNKNOWN";
}

AMXQA_API const char* amxqa_isa_name(amxqa_isa isa) {
  switch (amxqa::enum_bits(isa)) {
    case AMXQA_ISA_AUTO: return "auto";
    case AMXQA_ISA_SCALAR: return "scalar";
    case AMXQA_ISA_AVX2: return "avx2";
    case AMXQA_ISA_AVX512: return "avx512";
    case AMXQA_ISA_AMX: return "amx";
    case AMXQA_ISA_AMX_EMULATED: return "amx-emulated";
    case AMXQA_ISA_NEON: return "neon";
    case AMXQA_ISA_NEON_DOTPROD: return "neon-dotprod";
  }
  return "unknown";
}

AMXQA_API const char* amxqa_last_error(const amxqa_session* session) {
  return session ? amxqa::session_last_error(session) : amxqa::thread_error();
}

}  // extern "C"
