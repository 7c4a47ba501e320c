// capi_model.h — a model FILE opened through the public API (include/amxqa.hpp
// over include/amxqa.h), so what the trainer measures is exactly what ships:
// amxqa_model_open + amxqa_session_init + amxqa_answer over the exported bytes.
// Adds only what evaluation needs on top of amxqa::Model and amxqa::Session:
// errors as exceptions, and one session per decoding mode made on first use.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "amxqa.hpp"

namespace amxqa::train {

struct CapiAnswer {
  amxqa_status status = AMXQA_OK;
  std::string text;          // extractive: the passage span; free: the generation
  amxqa_answer_info info = amxqa_answer_info_init();
};

class CapiModel {
 public:
  // Maps the file and opens it; throws std::runtime_error with the
  // library's message on failure.
  explicit CapiModel(const std::string& path);

  const amxqa_model* model() const { return model_.get(); }
  amxqa_model_info info() const { return model_.info(); }
  std::vector<std::pair<std::string, float>> scores() const { return model_.scores(); }

  // Answers with an extractive (default) or free-mode session; sessions are
  // made on first use. use_vocab_mask follows the session option.
  CapiAnswer answer(const std::string& question, const std::string& passage, bool extractive = true,
                    bool use_vocab_mask = true);

 private:
  struct ModeSession {
    bool extractive, use_vocab_mask;
    amxqa::Session session;
  };
  amxqa::Session& session(bool extractive, bool use_vocab_mask);

  amxqa::Model model_;
  std::vector<ModeSession> sessions_;
};

}  // namespace amxqa::train
