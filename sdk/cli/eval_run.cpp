#include "eval_run.h"

#include <fstream>

namespace amxqa::cli {

bool open_eval_run(const char* cmd, const SessionArgs& args, const std::string& data_path, size_t limit,
                   const std::string& out_path,
                   const amxqa_session_options& options, eval::EvalSet* set, amxqa::Model* model,
                   amxqa::Session* session) {
  std::string error;
  if (!eval::load_eval_set(data_path, limit, set, &error)) return fail(cmd, error), false;
  if (set->questions.empty()) return fail(cmd, data_path + ": no questions to score"), false;
  if (!out_path.empty()) {  // fail before the long run, not after it
    std::ofstream probe(out_path, std::ios::app);
    if (!probe) return fail(cmd, "cannot write '" + out_path + "'"), false;
  }
  return open_model(cmd, args, model) && open_session(cmd, *model, options, session);
}

}  // namespace amxqa::cli
