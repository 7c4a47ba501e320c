// model_writer.h — the one function that turns a ModelSpec into an .amxqa
// FlatBuffers file image (schemas/amxqa.fbs), and a file helper.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "format/model_spec.h"

namespace amxqa {

// Serialises to an .amxqa file image (64-byte aligned weights). Converts each
// tensor to its dtype (bf16 round-to-nearest-even; i8 with per-row absmax
// scales) and layout. Throws std::runtime_error on an inconsistent spec.
std::vector<uint8_t> write_model(const ModelSpec& spec);

// Position of logical element (r, c) of one [rows][cols] slice in `layout`
// (what the writer packs and the trainer's import unpacks).
uint64_t packed_index(Layout layout, uint64_t rows, uint64_t cols, uint64_t r, uint64_t c);

// Writes bytes to a file; throws on I/O failure.
void write_file(const std::string& path, const std::vector<uint8_t>& bytes);

}  // namespace amxqa
