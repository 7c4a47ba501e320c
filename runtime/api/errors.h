// errors.h — where amxqa_last_error() finds its messages. Failures of
// amxqa_model_open / amxqa_session_init go to a thread-local buffer (no heap,
// no locks); a session's own failures live in the session and are returned by
// session_last_error(), implemented with the session (runtime/session/).
#pragma once
#include "amxqa.h"

namespace amxqa {

// Replaces the calling thread's message for amxqa_last_error(NULL)
// (printf-style, truncated to the buffer; never allocates).
void set_thread_error(const char* fmt, ...) __attribute__((format(printf, 1, 2)));

// The calling thread's message; "" when there was none.
const char* thread_error();

// Message of the last failure of `session` ("" when there was none). Never NULL.
const char* session_last_error(const amxqa_session* session);

}  // namespace amxqa
