#include "stages/capi_model.h"

#include <stdexcept>

namespace amxqa::train {

CapiModel::CapiModel(const std::string& path) : model_(amxqa::Model::open_file(path)) {
  if (!model_.ok())
    throw std::runtime_error(path + ": " + amxqa_status_name(model_.status().code) + ": " +
                             model_.status().message);
}

amxqa::Session& CapiModel::session(bool extractive, bool use_vocab_mask) {
  for (ModeSession& m : sessions_)
    if (m.extractive == extractive && m.use_vocab_mask == use_vocab_mask) return m.session;
  amxqa_session_options opt = amxqa::default_options();
  opt.extractive = extractive ? 1 : 0;
  opt.use_vocab_mask = use_vocab_mask ? 1 : 0;
  opt.max_passage_tokens = 4096;
  opt.max_question_tokens = 256;
  opt.max_answer_tokens = 32;
  amxqa::Session s = amxqa::Session::create(model_, opt);
  if (!s.ok())
    throw std::runtime_error(std::string("amxqa_session_init: ") + amxqa_status_name(s.status().code) +
                             ": " + s.status().message);
  sessions_.push_back({extractive, use_vocab_mask, std::move(s)});
  return sessions_.back().session;
}

CapiAnswer CapiModel::answer(const std::string& question, const std::string& passage, bool extractive,
                             bool use_vocab_mask) {
  const amxqa::Answer a = session(extractive, use_vocab_mask).answer(question, passage);
  CapiAnswer out;
  out.status = a.status.code;
  if (a.status.code == AMXQA_OK || a.status.code == AMXQA_ERR_OUTPUT_TOO_SMALL) out.text = a.text;
  out.info = a.info;
  return out;
}

}  // namespace amxqa::train
