// struct_size.h — amxqa.h "Structs that grow", for the output structs
// (amxqa_answer_info, amxqa_model_info, amxqa_cpu_info): the library fills a
// whole local struct, then writes only the caller's first struct_size bytes,
// so a caller built against an older, smaller struct is never overrun.
#pragma once
#include <cstdint>
#include <cstring>

namespace amxqa {

// Output structs carry struct_size since 0.2; anything smaller than their
// 0.2 size (the first with the field) is a caller error. When a struct
// grows, pass its 0.2 size as first_size.
template <class T>
bool struct_size_ok(const T* out, uint32_t first_size = sizeof(T)) {
  return out->struct_size >= first_size;
}

template <class T>
void copy_out(T* out, const T& full) {
  const uint32_t n = out->struct_size;
  std::memcpy(out, &full, n < sizeof full ? n : sizeof full);
  out->struct_size = n;
}

}  // namespace amxqa
