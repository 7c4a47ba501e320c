// tokenize_api.cpp — the public tokenizer entry points: thin, allocation-free
// wrappers over runtime/tokenizer with the model's verified TokenizerView.
#include "amxqa.h"
#include "model/model.h"
#include "tokenizer/tokenizer.h"

extern "C" {

AMXQA_API size_t amxqa_tokenize(const amxqa_model* model, const char* text, size_t len,
                                uint32_t* ids, size_t cap) {
  if (!model || model->magic != amxqa::kModelMagic) return 0;
  if (!text && len) return 0;
  // No output array: count only.
  return amxqa::encode(model->tok, text ? text : "", len, ids, nullptr, ids ? cap : 0);
}

AMXQA_API const char* amxqa_token_bytes(const amxqa_model* model, uint32_t id, size_t* len) {
  size_t n = 0;
  const uint8_t* p = nullptr;
  if (model && model->magic == amxqa::kModelMagic) p = amxqa::token_bytes(model->tok, id, &n);
  if (len) *len = p ? n : 0;
  return reinterpret_cast<const char*>(p);
}

}  // extern "C"
