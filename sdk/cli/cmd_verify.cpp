// cmd_verify.cpp — `amxqa verify M`: every validation check, each failure printed.
#include <cstdio>
#include <string>

#include "cli_common.h"
#include "commands.h"

namespace amxqa::cli {

namespace {
const char kHelp[] =
    "usage: amxqa verify [MODEL]\n\n"
    "Maps the model file and runs every check libamxqa makes when it opens one\n"
    "(FlatBuffers verifier, then every size, count, index, alignment and layout),\n"
    "printing each failed check. Exit status 0 only when the file is clean.\n";
}  // namespace

int cmd_verify(int argc, char** argv, int first) {
  const char* cmd = "verify";
  Args args(ArgSpec{{"model"}, {}, 0, 1}, argc, argv, first);
  if (int rc = check_args(cmd, args, kHelp); rc >= 0) return rc;
  std::string path = args.positionals().empty() ? resolve_model_path(args) : args.positionals()[0];

  size_t failures = 0;
  amxqa::Status st = amxqa::Model::verify_file(path, [&](amxqa_status code, const char* message) {
    ++failures;
    std::printf("FAIL %s: %s\n", amxqa_status_name(code), message ? message : "");
  });
  if (st.ok()) {
    std::printf("%s: ok (all checks passed)\n", path.c_str());
    return kExitOk;
  }
  if (failures == 0) return fail(cmd, path + ": " + st.message);  // could not even map it
  std::printf("%s: %zu check%s failed (first: %s)\n", path.c_str(), failures, failures == 1 ? "" : "s",
              st.name());
  return kExitFailure;
}

}  // namespace amxqa::cli
