// capi_model.h — a model FILE opened through the public C API (include/amxqa.h),
// so what the trainer measures is exactly what ships: amxqa_model_open +
// amxqa_session_init + amxqa_answer over the exported bytes.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "amxqa.h"

namespace amxqa::train {

struct CapiAnswer {
  amxqa_status status = AMXQA_OK;
  std::string text;          // extractive: the passage span; free: the generation
  amxqa_answer_info info = amxqa_answer_info_init();
};

class CapiModel {
 public:
  // Reads the file into 64-byte aligned memory and opens it; throws
  // std::runtime_error with amxqa_last_error() on failure.
  explicit CapiModel(const std::string& path);
  ~CapiModel();
  CapiModel(const CapiModel&) = delete;
  CapiModel& operator=(const CapiModel&) = delete;

  const amxqa_model* model() const { return model_; }
  amxqa_model_info info() const;
  std::vector<std::pair<std::string, float>> scores() const;

  // Answers with an extractive (default) or free-mode session; sessions are
  // made on first use. use_vocab_mask follows the session option.
  CapiAnswer answer(const std::string& question, const std::string& passage, bool extractive = true,
                    bool use_vocab_mask = true);

 private:
  struct Session;
  Session* session(bool extractive, bool use_vocab_mask);
  struct AlignedFree {
    void operator()(void* p) const;
  };
  std::unique_ptr<uint8_t, AlignedFree> bytes_, storage_;
  size_t size_ = 0;
  amxqa_model* model_ = nullptr;
  std::vector<std::unique_ptr<Session>> sessions_;
};

}  // namespace amxqa::train
