// model_writer.cpp — write_model(): a ModelSpec to an .amxqa FlatBuffers image
// (schemas/amxqa.fbs). The weights blob is created first, so it sits at the
// very end of the buffer, and its length is a multiple of 64: a file cut
// anywhere then always cuts the blob, which the verifier rejects. Each tensor
// starts on a 64-byte boundary inside the 64-aligned blob; i8 tensors are
// followed (64-aligned) by their f32 per-row scales.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <numeric>
#include <stdexcept>

#include "amxqa_generated.h"
#include "format/model_writer.h"

namespace amxqa {
namespace {

uint64_t align64(uint64_t x) { return (x + 63) & ~uint64_t(63); }

size_t elem_size(DType d) { return d == DType::f32 ? 4 : d == DType::bf16 ? 2 : 1; }

uint64_t product(const std::vector<uint32_t>& shape) {
  uint64_t n = 1;
  for (uint32_t d : shape) n *= d;
  return n;
}

// Where one tensor goes inside the blob.
struct Placement {
  uint64_t offset = 0, size = 0, scale_offset = 0;
  uint64_t slices = 1, rows = 1, cols = 1;  // [slices][rows][cols]: experts packed one by one
};

Placement place(const TensorSpec& t, uint64_t& cursor) {
  const std::string what = "write_model: tensor " + t.name + ": ";
  if (t.shape.empty()) throw std::runtime_error(what + "empty shape");
  if (t.stored.empty() && t.values.size() != product(t.shape))
    throw std::runtime_error(what + std::to_string(t.values.size()) + " values for " +
                             std::to_string(product(t.shape)) + " elements");
  if (static_cast<unsigned>(t.dtype) > 2 || static_cast<unsigned>(t.layout) > 2)
    throw std::runtime_error(what + "unknown dtype or layout");
  Placement p;
  p.cols = t.shape.back();
  if (t.shape.size() >= 2) p.rows = t.shape[t.shape.size() - 2];
  for (size_t i = 0; i + 2 < t.shape.size(); ++i) p.slices *= t.shape[i];
  if (t.layout == Layout::vnni2 && (t.dtype != DType::bf16 || t.shape.size() < 2 || p.cols % 2))
    throw std::runtime_error(what + "vnni2 needs a bf16 matrix with an even number of columns");
  if (t.weight_bits != 8 && !(t.weight_bits == 7 && t.dtype == DType::i8))
    throw std::runtime_error(what + "weight_bits is 8, or 7 for an i8 matrix");
  if (t.layout == Layout::vnni4 && (t.dtype != DType::i8 || t.shape.size() < 2 || p.cols % 4))
    throw std::runtime_error(what + "vnni4 needs an i8 matrix with a multiple of 4 columns");
  p.offset = align64(cursor);
  p.size = product(t.shape) * elem_size(t.dtype);
  cursor = p.offset + p.size;
  const uint64_t scale_bytes = t.dtype == DType::i8 ? p.slices * p.rows * sizeof(float) : 0;
  if (scale_bytes) {
    p.scale_offset = align64(cursor);
    cursor = p.scale_offset + scale_bytes;
  }
  if (!t.stored.empty() && (t.stored.size() != p.size || t.stored_scales.size() != scale_bytes))
    throw std::runtime_error(what + "stored bytes are not its shape's (" + std::to_string(t.stored.size()) + " + " +
                             std::to_string(t.stored_scales.size()) + " scale bytes)");
  return p;
}

}  // namespace

uint64_t packed_index(Layout layout, uint64_t rows, uint64_t cols, uint64_t r, uint64_t c) {
  switch (layout) {
    case Layout::vnni2: return ((c / 2) * rows + r) * 2 + c % 2;
    case Layout::vnni4: return ((c / 4) * rows + r) * 4 + c % 4;
    case Layout::plain: break;
  }
  return r * cols + c;
}

namespace {

// Converts and packs a tensor's values into blob + placement (or copies its
// stored bytes).
void store(const TensorSpec& t, const Placement& p, uint8_t* blob) {
  uint8_t* dst = blob + p.offset;
  if (!t.stored.empty()) {
    std::memcpy(dst, t.stored.data(), t.stored.size());
    if (!t.stored_scales.empty()) std::memcpy(blob + p.scale_offset, t.stored_scales.data(), t.stored_scales.size());
    return;
  }
  float* scales = t.dtype == DType::i8 ? reinterpret_cast<float*>(blob + p.scale_offset) : nullptr;
  const uint64_t slice_elems = p.rows * p.cols;
  const float qmax = t.weight_bits == 7 ? 63.f : 127.f;
  for (uint64_t s = 0; s < p.slices; ++s) {
    for (uint64_t r = 0; r < p.rows; ++r) {
      const float* row = t.values.data() + s * slice_elems + r * p.cols;
      float inv_scale = 0.f;
      if (scales) {
        // Symmetric per-row absmax: w = scale * q, q in [-qmax, qmax].
        float absmax = 0.f;
        for (uint64_t c = 0; c < p.cols; ++c) absmax = std::max(absmax, std::fabs(row[c]));
        const float scale = absmax / qmax;
        scales[s * p.rows + r] = scale;
        inv_scale = scale > 0.f ? 1.f / scale : 0.f;
      }
      for (uint64_t c = 0; c < p.cols; ++c) {
        const uint64_t i = s * slice_elems + packed_index(t.layout, p.rows, p.cols, r, c);
        switch (t.dtype) {
          case DType::f32: std::memcpy(dst + i * 4, &row[c], 4); break;
          case DType::bf16: {
            const uint16_t b = f32_to_bf16(row[c]);
            std::memcpy(dst + i * 2, &b, 2);
            break;
          }
          case DType::i8: {
            const float q = std::nearbyint(row[c] * inv_scale);
            dst[i] = static_cast<uint8_t>(static_cast<int8_t>(std::clamp(q, -qmax, qmax)));
            break;
          }
        }
      }
    }
  }
}

flatbuffers::Offset<fb::Tokenizer> build_tokenizer(flatbuffers::FlatBufferBuilder& fbb,
                                                   const TokenizerData& tok, uint32_t vocab) {
  std::vector<fb::Merge> merges;
  merges.reserve(tok.merges.size());
  for (const auto& m : tok.merges) merges.emplace_back(m.first, m.second);
  // Ranks sorted by pair: the runtime finds a pair's rank by binary search.
  std::vector<uint32_t> index(merges.size());
  std::iota(index.begin(), index.end(), 0u);
  std::stable_sort(index.begin(), index.end(), [&](uint32_t a, uint32_t b) {
    return tok.merges[a] < tok.merges[b];
  });
  const std::vector<std::string> pieces = tok.pieces(vocab);
  std::vector<uint8_t> bytes;
  std::vector<uint32_t> offsets{0};
  uint32_t max_piece = 0;
  for (const std::string& p : pieces) {
    bytes.insert(bytes.end(), p.begin(), p.end());
    offsets.push_back(static_cast<uint32_t>(bytes.size()));
    max_piece = std::max<uint32_t>(max_piece, static_cast<uint32_t>(p.size()));
  }
  const auto fm = fbb.CreateVectorOfStructs(merges);
  const auto fi = fbb.CreateVector(index);
  const auto fpb = fbb.CreateVector(bytes);
  const auto fpo = fbb.CreateVector(offsets);
  return fb::CreateTokenizer(fbb, kByteBase, kMergeBase, fm, fi, fpb, fpo, max_piece,
                             tok.max_chunk_len);
}

flatbuffers::Offset<fb::Provenance> build_provenance(flatbuffers::FlatBufferBuilder& fbb,
                                                     const Provenance& p) {
  std::vector<flatbuffers::Offset<flatbuffers::String>> digests;
  for (const auto& d : p.data_digests) digests.push_back(fbb.CreateString(d));
  std::vector<flatbuffers::Offset<fb::Score>> scores;
  for (const auto& s : p.scores) scores.push_back(fb::CreateScore(fbb, fbb.CreateString(s.first), s.second));
  const auto tv = fbb.CreateString(p.trainer_version);
  const auto rc = fbb.CreateString(p.recipe);
  const auto rt = fbb.CreateString(p.recipe_text);
  const auto dg = fbb.CreateVector(digests);
  const auto sc = fbb.CreateVector(scores);
  const auto nt = fbb.CreateString(p.notes);
  return fb::CreateProvenance(fbb, tv, rc, rt, dg, p.tokens_seen, p.wall_seconds, sc, nt);
}

}  // namespace

std::vector<uint8_t> write_model(const ModelSpec& spec) {
  const ArchConfig& a = spec.arch;
  if (spec.vocab_mask.size() != a.vocab_size)
    throw std::runtime_error("write_model: vocab_mask has " + std::to_string(spec.vocab_mask.size()) +
                             " entries for vocab_size " + std::to_string(a.vocab_size));
  uint64_t cursor = 0;
  std::vector<Placement> placed;
  placed.reserve(spec.tensors.size());
  for (const TensorSpec& t : spec.tensors) placed.push_back(place(t, cursor));
  const uint64_t blob_size = align64(cursor);
  if (blob_size >= (uint64_t(1) << 31) - (uint64_t(64) << 20))
    throw std::runtime_error("write_model: weights exceed the 2 GiB FlatBuffers limit");

  flatbuffers::FlatBufferBuilder fbb(static_cast<size_t>(blob_size) + (1u << 20));
  // The blob first: it ends the file (see the top of this file). This is
  // ForceVectorAlignment(blob_size, 1, 64) without its debug assertion, which
  // caps alignment at FLATBUFFERS_MAX_ALIGNMENT (32 in flatbuffers 2.0.8).
  fbb.PreAlign(static_cast<size_t>(blob_size), 64);
  uint8_t* blob = nullptr;
  const auto weights = fbb.CreateUninitializedVector(static_cast<size_t>(blob_size), &blob);
  if (blob_size) std::memset(blob, 0, static_cast<size_t>(blob_size));
  for (size_t i = 0; i < spec.tensors.size(); ++i) store(spec.tensors[i], placed[i], blob);

  std::vector<flatbuffers::Offset<fb::Tensor>> tensors;
  for (size_t i = 0; i < spec.tensors.size(); ++i) {
    const TensorSpec& t = spec.tensors[i];
    tensors.push_back(fb::CreateTensor(fbb, fbb.CreateString(t.name), static_cast<fb::DType>(t.dtype),
                                       static_cast<fb::Layout>(t.layout), fbb.CreateVector(t.shape),
                                       placed[i].offset, placed[i].size, placed[i].scale_offset,
                                       t.weight_bits));
  }
  const auto ftensors = fbb.CreateVector(tensors);

  std::vector<uint8_t> mask((spec.vocab_mask.size() + 7) / 8, 0);
  for (size_t i = 0; i < spec.vocab_mask.size(); ++i)
    if (spec.vocab_mask[i]) mask[i >> 3] |= uint8_t(1u << (i & 7));
  const auto fmask = fbb.CreateVector(mask);

  const auto ftok = build_tokenizer(fbb, spec.tokenizer, a.vocab_size);
  const auto fprov = build_provenance(fbb, spec.provenance);

  std::vector<fb::LayerKind> kinds;
  for (uint8_t k : a.layer_kinds) kinds.push_back(static_cast<fb::LayerKind>(k));
  const auto fkinds = fbb.CreateVector(kinds);
  const auto fmoe = fbb.CreateVector(a.moe_layers);
  const auto farch = fb::CreateArch(fbb, a.d_model, a.n_layers, fkinds, a.n_heads, a.n_kv_heads,
                                    a.head_dim, a.window, a.lin_state, a.d_ff, a.moe_experts,
                                    a.moe_top_k, a.moe_d_ff, a.moe_route_block, a.moe_route_window,
                                    fmoe, a.vocab_size, a.rope_theta, a.norm_eps,
                                    a.question_match, a.start_pointer, a.end_pointer,
                                    a.no_answer_head, a.question_reread, a.passage_reader);
  const auto fspecials = fb::CreateSpecials(fbb, kPad, kBos, kEot, kAns, kAbstain);
  flatbuffers::Offset<fb::Calibration> fcal = 0;
  if (spec.calibration.present) {
    if (!std::isfinite(spec.calibration.no_answer_threshold))
      throw std::runtime_error("write_model: calibration.no_answer_threshold is not finite");
    fcal = fb::CreateCalibration(fbb, spec.calibration.no_answer_threshold,
                                 fbb.CreateString(spec.calibration.method));
  }
  const auto root = fb::CreateModel(fbb, spec.format_version, farch, fspecials, ftok, fmask,
                                    ftensors, weights, fprov, fcal);
  fb::FinishModelBuffer(fbb, root);
  return std::vector<uint8_t>(fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize());
}

void write_file(const std::string& path, const std::vector<uint8_t>& bytes) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  if (!f) throw std::runtime_error("write_file: cannot open " + path);
  f.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  f.close();
  if (!f) throw std::runtime_error("write_file: cannot write " + path);
}

}  // namespace amxqa
