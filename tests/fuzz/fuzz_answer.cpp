// fuzz_answer.cpp — amxqa_answer / amxqa_answer_stream with arbitrary
// question and passage bytes on the fixed micro model (built once in
// LLVMFuzzerInitialize). Input layout:
//   byte 0  mode: bits 0-1 pick a session (default limits, small limits,
//           free generation, scalar backend); bit 2 streams; bit 3 gives a
//           tiny output buffer; bit 4 cancels the stream after one token;
//           bit 5 answers on the micro model with every pointer feature
//           (start/end pointers, no-answer head, passage reader) instead,
//           in windows of at most 24 tokens
//   byte 1  question length (clamped to what is left)
//   rest    question bytes, then passage bytes
// Every result must be a defined status, and an answer must be a span of the
// passage that the output holds byte for byte.
#include <cstring>
#include <memory>
#include <string>

#include "fuzz_support.h"

using amxqa::fuzz::AlignedCopy;

namespace {

struct Placed {
  std::unique_ptr<AlignedCopy> mem;
  amxqa_session* s = nullptr;
};

Placed g_sessions[4];
Placed g_reader;  // mode bit 5

Placed place(const amxqa_session_options& opt, const amxqa_model* model = amxqa::fuzz::micro_model()) {
  Placed p;
  const size_t need = amxqa_session_size(model, &opt);
  AMXQA_FUZZ_CHECK(need > 0);
  p.mem = std::make_unique<AlignedCopy>(need);
  AMXQA_FUZZ_CHECK(amxqa_session_init(model, &opt, p.mem->data(), need, &p.s) == AMXQA_OK);
  return p;
}

struct Stream {
  std::string bytes;
  bool cancel = false;
};

int on_token(void* user, const char* bytes, size_t len) {
  auto* st = static_cast<Stream*>(user);
  AMXQA_FUZZ_CHECK(len > 0 && bytes != nullptr);
  st->bytes.append(bytes, len);
  return st->cancel ? 1 : 0;
}

bool defined_status(amxqa_status st) {
  return st == AMXQA_OK || st == AMXQA_ERR_EMPTY_QUESTION || st == AMXQA_ERR_PASSAGE_TOO_LONG ||
         st == AMXQA_ERR_QUESTION_TOO_LONG || st == AMXQA_ERR_OUTPUT_TOO_SMALL ||
         st == AMXQA_ERR_CANCELLED;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  amxqa_session_options o;
  amxqa_session_options_default(&o);
  g_sessions[0] = place(o);  // defaults, best backend
  amxqa_session_options small = o;
  small.max_passage_tokens = 24;
  small.max_question_tokens = 6;
  small.max_answer_tokens = 3;
  g_sessions[1] = place(small);
  amxqa_session_options free_mode = o;
  free_mode.extractive = 0;
  free_mode.max_answer_tokens = 8;
  g_sessions[2] = place(free_mode);
  amxqa_session_options scalar = o;
  scalar.isa = AMXQA_ISA_SCALAR;  // slow under ASan: fewer decode steps
  scalar.use_vocab_mask = 0;
  scalar.max_answer_tokens = 6;
  g_sessions[3] = place(scalar);
  amxqa_session_options windows = o;
  windows.max_passage_tokens = 24;
  windows.windows = 1;
  windows.window_overlap = 4;
  g_reader = place(windows, amxqa::fuzz::micro_reader_model());
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  const uint8_t mode = data[0];
  const size_t qlen = data[1] < size - 2 ? data[1] : size - 2;
  const size_t plen = size - 2 - qlen;
  // Exact-size copies: neither string is NUL-terminated.
  const std::unique_ptr<char[]> q(new char[qlen ? qlen : 1]);
  const std::unique_ptr<char[]> p(new char[plen ? plen : 1]);
  std::memcpy(q.get(), data + 2, qlen);
  std::memcpy(p.get(), data + 2 + qlen, plen);

  const bool reader = (mode & 32) != 0;
  amxqa_session* s = reader ? g_reader.s : g_sessions[mode & 3].s;
  const bool extractive = reader || (mode & 3) != 2;
  amxqa_answer_info info = amxqa_answer_info_init();
  amxqa_status st;
  if (mode & 4) {
    Stream stream;
    stream.cancel = (mode & 16) != 0;
    st = amxqa_answer_stream(s, q.get(), qlen, p.get(), plen, on_token, &stream, &info);
    AMXQA_FUZZ_CHECK(defined_status(st) && st != AMXQA_ERR_OUTPUT_TOO_SMALL);
    if (st == AMXQA_ERR_CANCELLED) AMXQA_FUZZ_CHECK(stream.cancel && info.answer_tokens == 1);
    if (st == AMXQA_OK && extractive && !info.abstained) {
      // The streamed token bytes, less ASCII spaces at the ends, lie inside
      // the final span: the span only trims spaces and widens its edges to
      // whole UTF-8 characters, which byte-level tokens may split (amxqa.h).
      AMXQA_FUZZ_CHECK(info.span_begin <= info.span_end && info.span_end <= plen);
      const std::string span(p.get() + info.span_begin, info.span_end - info.span_begin);
      const size_t b = stream.bytes.find_first_not_of(" \t\n\r\f\v");
      const std::string core =
          b == std::string::npos
              ? std::string()
              : stream.bytes.substr(b, stream.bytes.find_last_not_of(" \t\n\r\f\v") + 1 - b);
      AMXQA_FUZZ_CHECK(span.find(core) != std::string::npos);
    }
  } else {
    const size_t outcap = (mode & 8) ? 3 : 512;
    const std::unique_ptr<char[]> out(new char[outcap]);
    st = amxqa_answer(s, q.get(), qlen, p.get(), plen, out.get(), outcap, &info);
    AMXQA_FUZZ_CHECK(defined_status(st) && st != AMXQA_ERR_CANCELLED);
    if (st == AMXQA_OK || st == AMXQA_ERR_OUTPUT_TOO_SMALL) {
      AMXQA_FUZZ_CHECK(std::memchr(out.get(), 0, outcap) != nullptr);
      if (info.abstained) AMXQA_FUZZ_CHECK(out[0] == '\0' && st == AMXQA_OK);
      if (!extractive) AMXQA_FUZZ_CHECK(info.span_begin == 0 && info.span_end == 0);
      if (extractive && !info.abstained) {
        AMXQA_FUZZ_CHECK(info.span_begin <= info.span_end && info.span_end <= plen);
        const size_t len = info.span_end - info.span_begin;
        const size_t shown = len < outcap - 1 ? len : outcap - 1;
        AMXQA_FUZZ_CHECK((st == AMXQA_OK) == (len < outcap));
        AMXQA_FUZZ_CHECK(std::memcmp(out.get(), p.get() + info.span_begin, shown) == 0);
        AMXQA_FUZZ_CHECK(out[shown] == '\0');
      }
    }
  }
  if (qlen == 0) AMXQA_FUZZ_CHECK(st == AMXQA_ERR_EMPTY_QUESTION);
  if (st != AMXQA_OK) (void)std::strlen(amxqa_last_error(s));
  return 0;
}
