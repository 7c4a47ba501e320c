#include "data/pieces.h"

#include <algorithm>
#include <cstdio>
#include <memory>
#include <stdexcept>

#include "data/encode_text.h"
#include "gz_text.h"
#include "data/rng.h"
#include "format/model_spec.h"

namespace amxqa::train {

void append_document(PieceStore& store, const uint32_t* doc, size_t n, uint32_t seq_len) {
  if (seq_len < 2) throw std::invalid_argument("seq_len < 2");
  const size_t body = seq_len - 1;
  for (size_t b = 0; b < n; b += body) {
    size_t len = std::min(body, n - b);
    store.tokens.push_back(kBos);
    store.tokens.insert(store.tokens.end(), doc + b, doc + b + len);
    store.offsets.push_back(store.tokens.size());
  }
}

PieceStore build_pieces(const TokenizerView& tok, const CorpusOptions& opt,
                        const std::function<void(uint64_t)>& progress) {
  PieceStore store;
  std::vector<uint32_t> ids;
  std::string doc;
  uint64_t done = 0, last_report = 0;
  auto emit = [&] {
    if (doc.empty()) return;
    ids.clear();
    encode_append(tok, doc.data(), doc.size(), ids);
    if (!ids.empty()) append_document(store, ids.data(), ids.size(), opt.seq_len);
    done += doc.size();
    doc.clear();
    if (progress && done - last_report > (4u << 20)) {
      last_report = done;
      progress(done);
    }
  };
  for (const std::string& f : opt.files) {
    eval::for_each_paragraph(f, opt.max_bytes, opt.join_lines, [&](const std::string& para) {
      if (!doc.empty()) doc += "\n\n";
      doc += para;
      if (doc.size() >= opt.min_doc_bytes) emit();
      return true;
    });
    emit();  // documents never span two files
  }
  if (progress) progress(done);
  return store;
}

namespace {
constexpr uint64_t kPieceMagic = 0x31534345434950ull;  // "PIECES1"
struct FileCloser {
  void operator()(std::FILE* f) const { if (f) std::fclose(f); }
};
}  // namespace

void save_pieces(const std::string& path, const PieceStore& store, uint64_t key) {
  std::string tmp = path + ".tmp";
  std::unique_ptr<std::FILE, FileCloser> f(std::fopen(tmp.c_str(), "wb"));
  if (!f) throw std::runtime_error("cannot write " + tmp);
  uint64_t head[4] = {kPieceMagic, key, store.offsets.size(), store.tokens.size()};
  bool ok = std::fwrite(head, sizeof head, 1, f.get()) == 1 &&
            std::fwrite(store.offsets.data(), 8, store.offsets.size(), f.get()) == store.offsets.size() &&
            std::fwrite(store.tokens.data(), 4, store.tokens.size(), f.get()) == store.tokens.size();
  ok = (std::fclose(f.release()) == 0) && ok;
  if (!ok || std::rename(tmp.c_str(), path.c_str()) != 0) throw std::runtime_error("cannot write " + path);
}

bool load_pieces(const std::string& path, uint64_t key, PieceStore& store) {
  std::unique_ptr<std::FILE, FileCloser> f(std::fopen(path.c_str(), "rb"));
  if (!f) return false;
  uint64_t head[4];
  if (std::fread(head, sizeof head, 1, f.get()) != 1 || head[0] != kPieceMagic || head[1] != key) return false;
  if (head[2] == 0 || head[2] > (1ull << 34) || head[3] > (1ull << 36)) return false;
  PieceStore s;
  s.offsets.resize(head[2]);
  s.tokens.resize(head[3]);
  if (std::fread(s.offsets.data(), 8, s.offsets.size(), f.get()) != s.offsets.size()) return false;
  if (std::fread(s.tokens.data(), 4, s.tokens.size(), f.get()) != s.tokens.size()) return false;
  if (s.offsets[0] != 0 || s.offsets.back() != s.tokens.size()) return false;
  for (size_t i = 1; i < s.offsets.size(); ++i)
    if (s.offsets[i] <= s.offsets[i - 1]) return false;
  store = std::move(s);
  return true;
}

DataSplit split_pieces(size_t n_pieces, size_t val, uint64_t seed) {
  std::vector<uint32_t> all(n_pieces);
  for (size_t i = 0; i < n_pieces; ++i) all[i] = static_cast<uint32_t>(i);
  Rng rng(seed ^ 0x76616c69646174ull);  // "validat": independent of the epoch shuffles
  shuffle(all, rng);
  val = std::min(val, n_pieces / 2);
  DataSplit s;
  s.val.assign(all.begin(), all.begin() + static_cast<long>(val));
  s.train.assign(all.begin() + static_cast<long>(val), all.end());
  // Sorted so both lists are independent of the shuffle's internal order.
  std::sort(s.val.begin(), s.val.end());
  std::sort(s.train.begin(), s.train.end());
  return s;
}

uint32_t PieceOrder::at(uint64_t cursor) {
  if (base_.empty()) throw std::runtime_error("no training pieces");
  uint64_t epoch = cursor / base_.size();
  if (epoch != epoch_) {
    perm_ = base_;
    Rng rng(seed_ * 0x100000001b3ull + epoch);
    shuffle(perm_, rng);
    epoch_ = epoch;
  }
  return perm_[cursor % base_.size()];
}

}  // namespace amxqa::train
