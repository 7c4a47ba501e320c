// cmd_verify.cpp — `amxqa verify M`: every validation check, each failure printed.
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>

#include "cli_common.h"
#include "commands.h"

namespace amxqa::cli {

namespace {
const char kHelp[] =
    "usage: amxqa verify [MODEL] [--json]\n\n"
    "Maps the model file and runs every check libamxqa makes when it opens one\n"
    "(FlatBuffers verifier, then every size, count, index, alignment and layout),\n"
    "printing each failed check. Exit status 0 only when the file is clean. --json\n"
    "prints {\"file\", \"ok\", \"failures\": [{\"status\", \"message\"}]} instead.\n";
}  // namespace

int cmd_verify(int argc, char** argv, int first) {
  const char* cmd = "verify";
  std::string path;
  bool json = false;
  if (int rc = parse_model_file_args(cmd, argc, argv, first, kHelp, &path, &json); rc >= 0) return rc;

  const bool as_json = json;
  size_t failures = 0;
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  amxqa::Status st = amxqa::Model::verify_file(path, [&](amxqa_status code, const char* message) {
    ++failures;
    if (as_json) list.push_back({{"status", amxqa_status_name(code)}, {"message", message ? message : ""}});
    else std::printf("FAIL %s: %s\n", amxqa_status_name(code), message ? message : "");
  });
  if (as_json && (st.ok() || failures > 0)) {
    const nlohmann::ordered_json j = {{"file", path}, {"ok", st.ok()}, {"failures", std::move(list)}};
    std::printf("%s\n", j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
    return st.ok() ? kExitOk : kExitFailure;
  }
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
