// gz_text.h — streaming reads of gzip files (corpora, SQuAD files) through
// zlib (gzopen/gzgets/gzread also read uncompressed files transparently).
#pragma once
#include <cstdint>
#include <functional>
#include <string>

namespace amxqa::eval {

// The whole decompressed content (at most max_bytes when max_bytes > 0).
// Throws std::runtime_error when the file cannot be opened or is corrupt.
std::string read_gz(const std::string& path, uint64_t max_bytes = 0);

// Calls on_paragraph for each blank-line-separated paragraph of the file, in
// order, until it returns false or max_bytes (> 0) of text have been read.
// With join_lines, the hard line wraps inside a paragraph become single
// spaces (Gutenberg is wrapped at ~70 columns; SQuAD passages are not).
// Returns the decompressed bytes read.
uint64_t for_each_paragraph(const std::string& path, uint64_t max_bytes, bool join_lines,
                            const std::function<bool(const std::string&)>& on_paragraph);

// Provenance digest of a data file: FNV-1a 64 over the first MiB of the raw
// (compressed) file bytes, plus the file size: "name fnv1a64-1MiB=<hex> bytes=<n>".
std::string data_digest(const std::string& path);

// FNV-1a 64 of a byte string (also used for cache keys).
uint64_t fnv1a64(const void* data, size_t len, uint64_t h = 0xcbf29ce484222325ull);

}  // namespace amxqa::eval
