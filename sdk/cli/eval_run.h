// eval_run.h — the shared start of `amxqa squad` and `amxqa calibrate`: the
// labelled SQuAD set, the output file checked writable before the long run,
// then the model and its session. On failure the error is printed.
#pragma once
#include <string>

#include "cli_common.h"
#include "squad_eval_set.h"

namespace amxqa::cli {

// data_path: the SQuAD file; out_path may be "" (nothing to write).
bool open_eval_run(const char* cmd, const SessionArgs& args, const std::string& data_path, size_t limit,
                   const std::string& out_path,
                   const amxqa_session_options& options, eval::EvalSet* set, amxqa::Model* model,
                   amxqa::Session* session);

}  // namespace amxqa::cli
