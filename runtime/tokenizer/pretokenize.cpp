// pretokenize.cpp — splits bytes into pre-tokenizer chunks (schemas/MODEL.md
// "Tokenizer", step 1). BPE merges never cross a chunk boundary, so this is
// what keeps encoding local, fast and independent of far-away text.
#include <cstdint>

#include "tokenizer/tokenizer.h"

namespace amxqa {
namespace {

// Byte classes of MODEL.md: letters (ASCII letters and every byte >= 0x80, so
// UTF-8 sequences stay together), digits, space, other white space, the rest.
enum ByteClass : uint8_t { kL, kD, kS, kX, kP };

struct ClassTable {
  uint8_t of[256];
  constexpr ClassTable() : of() {
    for (int b = 0; b < 256; ++b) {
      uint8_t c = kP;
      if ((b >= 'a' && b <= 'z') || (b >= 'A' && b <= 'Z') || b >= 0x80) c = kL;
      else if (b >= '0' && b <= '9') c = kD;
      else if (b == ' ') c = kS;
      else if (b == '\t' || b == '\n' || b == '\v' || b == '\f' || b == '\r') c = kX;
      of[b] = c;
    }
  }
};
constexpr ClassTable kClasses;

inline uint8_t class_of(const char* text, size_t i) {
  return kClasses.of[static_cast<uint8_t>(text[i])];
}

// Length of the chunk that starts at `pos` (< len), before the max_chunk_len cut.
size_t natural_chunk_len(const char* text, size_t len, size_t pos) {
  const uint8_t c = class_of(text, pos);
  size_t end = pos + 1;
  if (c == kS && end < len) {
    const uint8_t next = class_of(text, end);
    if (next == kL) {  // " word": the space plus the whole letter run
      ++end;
      while (end < len && class_of(text, end) == kL) ++end;
      return end - pos;
    }
    if (next == kD || next == kP) return 2;  // " 7", " (": the space plus one byte
  }
  if (c == kL) {
    while (end < len && class_of(text, end) == kL) ++end;
    return end - pos;
  }
  if (c == kD || c == kP) return 1;
  // A run of white space; a final space directly before a non-space byte is
  // left for the next chunk so that " word" keeps its leading space. The run
  // here has at least two bytes (a lone space before L/D/P was handled above).
  while (end < len && (class_of(text, end) == kS || class_of(text, end) == kX)) ++end;
  if (end < len && text[end - 1] == ' ' && end - 1 > pos) --end;
  return end - pos;
}

}  // namespace

void pretokenize(const char* text, size_t len, uint32_t max_chunk_len,
                 void (*on_chunk)(void* user, size_t begin, size_t len), void* user) {
  // A corrupt or zero limit must not hang or overflow the encoder's stack scratch.
  const size_t cut = (max_chunk_len == 0 || max_chunk_len > kMaxChunkLen) ? kMaxChunkLen : max_chunk_len;
  size_t pos = 0;
  while (pos < len) {
    const size_t n = natural_chunk_len(text, len, pos);
    for (size_t done = 0; done < n; done += cut) {
      on_chunk(user, pos + done, (n - done < cut) ? n - done : cut);
    }
    pos += n;
  }
}

}  // namespace amxqa
