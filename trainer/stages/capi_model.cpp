#include "stages/capi_model.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

namespace amxqa::train {

void CapiModel::AlignedFree::operator()(void* p) const { std::free(p); }

struct CapiModel::Session {
  bool extractive = true, use_vocab_mask = true;
  std::unique_ptr<uint8_t, AlignedFree> mem;
  amxqa_session* s = nullptr;
};

namespace {
uint8_t* aligned_bytes(size_t n) {
  size_t rounded = (n + 63) / 64 * 64;
  void* p = std::aligned_alloc(64, rounded ? rounded : 64);
  if (!p) throw std::bad_alloc();
  return static_cast<uint8_t*>(p);
}
}  // namespace

CapiModel::CapiModel(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) throw std::runtime_error("cannot open model " + path);
  std::fseek(f, 0, SEEK_END);
  long len = std::ftell(f);
  std::fseek(f, 0, SEEK_SET);
  if (len <= 0) {
    std::fclose(f);
    throw std::runtime_error("empty model file " + path);
  }
  size_ = static_cast<size_t>(len);
  bytes_.reset(aligned_bytes(size_));
  size_t got = std::fread(bytes_.get(), 1, size_, f);
  std::fclose(f);
  if (got != size_) throw std::runtime_error("short read of " + path);
  storage_.reset(aligned_bytes(AMXQA_MODEL_STORAGE_BYTES));
  amxqa_status st = amxqa_model_open(bytes_.get(), size_, storage_.get(), &model_);
  if (st != AMXQA_OK)
    throw std::runtime_error(path + ": " + amxqa_status_name(st) + ": " + amxqa_last_error(nullptr));
}

CapiModel::~CapiModel() {
  for (auto& s : sessions_)
    if (s->s) amxqa_session_finish(s->s);
}

amxqa_model_info CapiModel::info() const {
  amxqa_model_info i = amxqa_model_info_init();
  amxqa_model_get_info(model_, &i);
  return i;
}

std::vector<std::pair<std::string, float>> CapiModel::scores() const {
  size_t n = amxqa_model_scores(model_, nullptr, nullptr, 0);
  std::vector<const char*> names(n);
  std::vector<float> values(n);
  n = amxqa_model_scores(model_, names.data(), values.data(), n);
  std::vector<std::pair<std::string, float>> out;
  for (size_t i = 0; i < n; ++i) out.emplace_back(names[i] ? names[i] : "", values[i]);
  return out;
}

CapiModel::Session* CapiModel::session(bool extractive, bool use_vocab_mask) {
  for (auto& s : sessions_)
    if (s->extractive == extractive && s->use_vocab_mask == use_vocab_mask) return s.get();
  auto s = std::make_unique<Session>();
  s->extractive = extractive;
  s->use_vocab_mask = use_vocab_mask;
  amxqa_session_options opt;
  amxqa_session_options_default(&opt);
  opt.extractive = extractive ? 1 : 0;
  opt.use_vocab_mask = use_vocab_mask ? 1 : 0;
  opt.max_passage_tokens = 4096;
  opt.max_question_tokens = 256;
  opt.max_answer_tokens = 32;
  size_t need = amxqa_session_size(model_, &opt);
  if (need == 0) throw std::runtime_error("amxqa_session_size refused the options");
  s->mem.reset(aligned_bytes(need));
  amxqa_status st = amxqa_session_init(model_, &opt, s->mem.get(), need, &s->s);
  if (st != AMXQA_OK)
    throw std::runtime_error(std::string("amxqa_session_init: ") + amxqa_status_name(st) + ": " +
                             amxqa_last_error(nullptr));
  sessions_.push_back(std::move(s));
  return sessions_.back().get();
}

CapiAnswer CapiModel::answer(const std::string& question, const std::string& passage, bool extractive,
                             bool use_vocab_mask) {
  Session* s = session(extractive, use_vocab_mask);
  CapiAnswer a;
  std::vector<char> out(passage.size() + 4096);
  a.status = amxqa_answer(s->s, question.data(), question.size(), passage.data(), passage.size(), out.data(),
                          out.size(), &a.info);
  if (a.status == AMXQA_OK || a.status == AMXQA_ERR_OUTPUT_TOO_SMALL) a.text = out.data();
  return a;
}

}  // namespace amxqa::train
