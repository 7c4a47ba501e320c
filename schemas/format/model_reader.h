// model_reader.h — an .amxqa file image back into a ModelSpec, the inverse of
// write_model: every field the file holds, the tensors as their stored bytes
// (TensorSpec::stored), so write_model(read_model(file)) gives the file again
// and a tool can change one part (e.g. the provenance) and keep the rest bit
// for bit. It reads what the runtime's validator has accepted (call
// amxqa_model_verify or amxqa_model_open on the bytes first): it checks only
// what it indexes, and throws std::runtime_error on what it cannot carry.
#pragma once
#include <cstddef>
#include <cstdint>

#include "format/model_spec.h"

namespace amxqa {

ModelSpec read_model(const uint8_t* data, size_t size);

}  // namespace amxqa
