// model_validate.h — every check an .amxqa file must pass before the runtime
// indexes it (include/amxqa.h: "no unverified load path"). One function runs
// them all, for amxqa_model_open (which keeps the first failure) and for
// amxqa_model_verify (which reports every failure). Nothing here allocates.
#pragma once
#include <cstddef>
#include <cstdint>

#include "amxqa.h"
#include "amxqa_generated.h"
#include "kernels/kernels.h"

namespace amxqa {

// Receives failed checks: forwards each to an optional callback and keeps the
// first one (status and message) for amxqa_model_open / amxqa_last_error.
class CheckSink {
 public:
  CheckSink(amxqa_report_fn report, void* user) : report_(report), user_(user) {}
  void fail(amxqa_status status, const char* fmt, ...) __attribute__((format(printf, 3, 4)));
  amxqa_status first() const { return first_; }
  const char* first_message() const { return first_message_; }
  unsigned failures() const { return failures_; }

 private:
  amxqa_report_fn report_;
  void* user_;
  amxqa_status first_ = AMXQA_OK;
  unsigned failures_ = 0;
  char first_message_[256] = {};
};

// Runs every check on the file image [data, data + len). The checks that make
// the rest meaningless (size, identifier, FlatBuffers verifier, format
// version) stop at their first failure; the semantic checks all run, so every
// independent problem is reported. Returns sink.first(); on AMXQA_OK *root is
// the verified root table. Does not check the alignment of `data` itself.
amxqa_status validate_model(const uint8_t* data, size_t len, CheckSink& sink,
                            const fb::Model** root);

// The tensor called `name`, or nullptr. Linear search: a model has at most a
// few hundred tensors, and validation rejects duplicates.
const fb::Tensor* find_tensor(const fb::Model& model, const char* name);

// Bytes of one element of a dtype (f32 4, bf16 2, i8 1).
inline uint32_t dtype_size(DType d) { return d == DType::f32 ? 4u : d == DType::bf16 ? 2u : 1u; }

}  // namespace amxqa
