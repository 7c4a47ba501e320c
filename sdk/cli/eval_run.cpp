#include "eval_run.h"

#include <cstdio>
#include <fstream>

namespace amxqa::cli {

bool open_eval_run(const char* cmd, const SessionArgs& args, const std::string& data_path, size_t limit,
                   const std::string& out_path,
                   const amxqa_session_options& options, eval::EvalSet* set, amxqa::Model* model,
                   amxqa::Session* session) {
  std::string error;
  if (!eval::load_eval_set(data_path, limit, set, &error)) return fail(cmd, error), false;
  if (set->questions.empty()) return fail(cmd, data_path + ": no questions to score"), false;
  if (!open_model(cmd, args, model) || !open_session(cmd, *model, options, session)) return false;
  if (!out_path.empty()) {  // fail before the long run, not after it
    // A probe that made the file removes it again: a failed run leaves no output file.
    const bool existed = std::ifstream(out_path).good();
    const bool writable = static_cast<bool>(std::ofstream(out_path, std::ios::app));
    if (!existed) std::remove(out_path.c_str());
    if (!writable) return fail(cmd, "cannot write '" + out_path + "'"), false;
  }
  return true;
}

}  // namespace amxqa::cli
