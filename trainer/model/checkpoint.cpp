// checkpoint.cpp — bit-exact training checkpoints: every Param's weights and
// AdamW moments, the TrainState and token_seen, in one little-endian binary
// file with a CRC-32 trailer, written to a temporary file and renamed so a
// crash never leaves a half-written checkpoint under the real name.
//
// Layout: "AMXQACKP" u32 version u32 n_params
//         per param: u32 name_len, name, u32 ndim, u32 dims[ndim], f32 w[], f32 m[], f32 v[]
//         TrainState: u64 step, tokens_seen, data_cursor, rng_state; u32 len, extra
//         u64 n_vocab, u64 token_seen[n_vocab]; u32 crc32(all bytes before it)
#include <zlib.h>

#include <cstdio>
#include <cstring>
#include <stdexcept>

#include "model/train_model.h"

namespace amxqa::train {
namespace {

constexpr char kMagic[8] = {'A', 'M', 'X', 'Q', 'A', 'C', 'K', 'P'};
constexpr uint32_t kVersion = 1;

struct Writer {
  std::vector<uint8_t> buf;
  void bytes(const void* p, size_t n) {
    const uint8_t* b = static_cast<const uint8_t*>(p);
    buf.insert(buf.end(), b, b + n);
  }
  template <typename T>
  void pod(T v) { bytes(&v, sizeof v); }
};

struct Reader {
  const uint8_t* p;
  size_t left;
  void bytes(void* out, size_t n) {
    if (n > left) throw std::runtime_error("checkpoint truncated");
    std::memcpy(out, p, n);
    p += n;
    left -= n;
  }
  template <typename T>
  T pod() {
    T v;
    bytes(&v, sizeof v);
    return v;
  }
};

// zlib's crc32 takes a 32-bit length; feed it in chunks.
uint32_t crc_of(const uint8_t* p, size_t n) {
  uLong c = crc32(0L, Z_NULL, 0);
  while (n > 0) {
    const size_t k = n < (1u << 30) ? n : (1u << 30);
    c = crc32(c, p, static_cast<uInt>(k));
    p += k;
    n -= k;
  }
  return static_cast<uint32_t>(c);
}

}  // namespace

void save_checkpoint(const std::string& path, const TrainModel& m, const TrainState& s) {
  Writer w;
  w.bytes(kMagic, sizeof kMagic);
  w.pod<uint32_t>(kVersion);
  w.pod<uint32_t>(static_cast<uint32_t>(m.params().size()));
  for (const Param& p : m.params()) {
    w.pod<uint32_t>(static_cast<uint32_t>(p.name.size()));
    w.bytes(p.name.data(), p.name.size());
    w.pod<uint32_t>(static_cast<uint32_t>(p.shape.size()));
    for (uint32_t d : p.shape) w.pod<uint32_t>(d);
    w.bytes(p.w.data(), p.w.size() * sizeof(float));
    w.bytes(p.m.data(), p.m.size() * sizeof(float));
    w.bytes(p.v.data(), p.v.size() * sizeof(float));
  }
  w.pod<uint64_t>(s.step);
  w.pod<uint64_t>(s.tokens_seen);
  w.pod<uint64_t>(s.data_cursor);
  w.pod<uint64_t>(s.rng_state);
  w.pod<uint32_t>(static_cast<uint32_t>(s.extra.size()));
  w.bytes(s.extra.data(), s.extra.size());
  w.pod<uint64_t>(m.token_seen().size());
  w.bytes(m.token_seen().data(), m.token_seen().size() * sizeof(uint64_t));
  w.pod<uint32_t>(crc_of(w.buf.data(), w.buf.size()));

  const std::string tmp = path + ".tmp";
  FILE* f = std::fopen(tmp.c_str(), "wb");
  if (!f) throw std::runtime_error("cannot write checkpoint " + tmp);
  const bool ok = std::fwrite(w.buf.data(), 1, w.buf.size(), f) == w.buf.size();
  if (std::fclose(f) != 0 || !ok) {
    std::remove(tmp.c_str());
    throw std::runtime_error("short write on checkpoint " + tmp);
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0)
    throw std::runtime_error("cannot rename checkpoint to " + path);
}

bool load_checkpoint(const std::string& path, TrainModel& m, TrainState& s) {
  FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return false;
  std::vector<uint8_t> buf;
  uint8_t chunk[1 << 16];
  size_t got;
  while ((got = std::fread(chunk, 1, sizeof chunk, f)) > 0) buf.insert(buf.end(), chunk, chunk + got);
  std::fclose(f);
  if (buf.size() < sizeof kMagic + 12) throw std::runtime_error("checkpoint too short: " + path);
  uint32_t stored_crc;
  std::memcpy(&stored_crc, buf.data() + buf.size() - 4, 4);
  if (stored_crc != crc_of(buf.data(), buf.size() - 4))
    throw std::runtime_error("checkpoint CRC mismatch: " + path);
  Reader r{buf.data(), buf.size() - 4};
  char magic[8];
  r.bytes(magic, 8);
  if (std::memcmp(magic, kMagic, 8) != 0) throw std::runtime_error("not a checkpoint: " + path);
  if (r.pod<uint32_t>() != kVersion) throw std::runtime_error("checkpoint version mismatch");
  std::vector<Param>& params = m.params();
  if (r.pod<uint32_t>() != params.size()) throw std::runtime_error("checkpoint: parameter count differs");
  // Parse into copies first, so a mismatch leaves the model unchanged.
  std::vector<std::vector<float>> w(params.size()), mo(params.size()), vo(params.size());
  for (size_t i = 0; i < params.size(); ++i) {
    const Param& p = params[i];
    const uint32_t len = r.pod<uint32_t>();
    if (len > r.left) throw std::runtime_error("checkpoint truncated");
    std::string name(len, '\0');
    r.bytes(name.data(), len);
    const uint32_t nd = r.pod<uint32_t>();
    if (name != p.name || nd != p.shape.size())
      throw std::runtime_error("checkpoint: tensor " + name + " does not match " + p.name);
    for (uint32_t dmn : p.shape)
      if (r.pod<uint32_t>() != dmn) throw std::runtime_error("checkpoint: shape of " + name + " differs");
    for (auto* dst : {&w[i], &mo[i], &vo[i]}) {
      dst->resize(p.w.size());
      r.bytes(dst->data(), dst->size() * sizeof(float));
    }
  }
  TrainState st;
  st.step = r.pod<uint64_t>();
  st.tokens_seen = r.pod<uint64_t>();
  st.data_cursor = r.pod<uint64_t>();
  st.rng_state = r.pod<uint64_t>();
  const uint32_t elen = r.pod<uint32_t>();
  if (elen > r.left) throw std::runtime_error("checkpoint truncated");
  st.extra.resize(elen);
  r.bytes(st.extra.data(), elen);
  const uint64_t nv = r.pod<uint64_t>();
  if (nv != m.token_seen().size()) throw std::runtime_error("checkpoint: vocabulary differs");
  std::vector<uint64_t> seen(nv);
  r.bytes(seen.data(), nv * sizeof(uint64_t));
  if (r.left != 0) throw std::runtime_error("checkpoint has trailing bytes");
  for (size_t i = 0; i < params.size(); ++i) {
    params[i].w.swap(w[i]);
    params[i].m.swap(mo[i]);
    params[i].v.swap(vo[i]);
  }
  m.token_seen().swap(seen);
  s = std::move(st);
  weights_changed();
  return true;
}

}  // namespace amxqa::train
