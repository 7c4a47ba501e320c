#include "cli_common.h"

#include <sys/stat.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstdio>
#include <cstring>

#include "amxqa_paths.h"
#include "no_answer_sweep.h"

namespace amxqa::cli {

int fail(const char* cmd, const std::string& message) {
  std::fprintf(stderr, "amxqa %s: %s\n", cmd, message.c_str());
  return kExitFailure;
}

int usage_error(const char* cmd, const std::string& message) {
  std::fprintf(stderr, "amxqa %s: %s (try 'amxqa %s --help')\n", cmd, message.c_str(), cmd);
  return kExitUsage;
}

int check_args(const char* cmd, const Args& args, const char* help_text) {
  if (args.help()) {
    std::fputs(help_text, stdout);
    return kExitOk;
  }
  if (!args.error().empty()) return usage_error(cmd, args.error());
  return -1;
}

using paths::is_file;

std::string resolve_model_path(const Args& args) {
  return args.has("model") ? args.get("model") : paths::default_model();
}

bool parse_isa(const std::string& name, amxqa_isa* isa) {
  static const amxqa_isa all[] = {AMXQA_ISA_AUTO, AMXQA_ISA_SCALAR, AMXQA_ISA_AVX2,
                                  AMXQA_ISA_AVX512, AMXQA_ISA_AMX, AMXQA_ISA_AMX_EMULATED};
  for (amxqa_isa i : all) {
    if (name == amxqa_isa_name(i)) {
      *isa = i;
      return true;
    }
  }
  return false;
}

bool read_input(const std::string& path, std::string* out, std::string* error) {
  FILE* f = path == "-" ? stdin : nullptr;
  if (!f) {
    struct stat st;
    if (stat(path.c_str(), &st) != 0) {
      *error = "cannot read '" + path + "': " + std::strerror(errno);
      return false;
    }
    if (S_ISDIR(st.st_mode)) {
      *error = "cannot read '" + path + "': it is a directory";
      return false;
    }
    f = std::fopen(path.c_str(), "rb");
    if (!f) {
      *error = "cannot read '" + path + "': " + std::strerror(errno);
      return false;
    }
  }
  out->clear();
  char buf[1 << 16];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) out->append(buf, n);
  const bool failed = std::ferror(f) != 0;
  if (f != stdin) std::fclose(f);
  if (failed) {
    *error = "error reading '" + path + "'";
    return false;
  }
  return true;
}

bool open_model(const char* cmd, const Args& args, amxqa::Model* model) {
  std::string path = resolve_model_path(args);
  if (path.empty()) {
    fail(cmd, "no model: pass --model FILE or set AMXQA_MODEL");
    return false;
  }
  if (!is_file(path)) {
    fail(cmd, "no model file at '" + path + "' (pass --model FILE or set AMXQA_MODEL)");
    return false;
  }
  *model = amxqa::Model::open_file(path);
  if (!model->ok()) {
    fail(cmd, path + ": " + model->status().name() + ": " + model->status().message);
    return false;
  }
  return true;
}

bool session_options(const char* cmd, const Args& args, amxqa_session_options* options) {
  *options = amxqa::default_options();
  if (args.has("isa") && !parse_isa(args.get("isa"), &options->isa)) {
    usage_error(cmd, "--isa must be one of auto, scalar, avx2, avx512, amx, amx-emulated");
    return false;
  }
  bool ok = true;
  unsigned long long n = args.get_uint("max-passage-tokens", options->max_passage_tokens, &ok);
  if (!ok || n == 0 || n > 1u << 24) {
    usage_error(cmd, "--max-passage-tokens must be a positive integer");
    return false;
  }
  options->max_passage_tokens = static_cast<uint32_t>(n);
  if (args.flag("split-words")) options->whole_words = 0;
  return threshold_option(cmd, args, options);
}

bool threshold_option(const char* cmd, const Args& args, amxqa_session_options* options) {
  if (args.has("threshold") && args.has("threshold-file")) {
    usage_error(cmd, "pass --threshold or --threshold-file, not both");
    return false;
  }
  float t = 0.f;
  if (args.has("threshold")) {
    const std::string s = args.get("threshold");
    char* end = nullptr;
    t = std::strtof(s.c_str(), &end);
    if (s.empty() || *end != '\0' || std::isnan(t) || t == -INFINITY) {
      usage_error(cmd, "--threshold must be a number or inf (the no-answer margin above which the model abstains)");
      return false;
    }
  } else if (args.has("threshold-file")) {
    std::string text, error;
    if (!read_input(args.get("threshold-file"), &text, &error) || !eval::parse_threshold_json(text, &t, &error)) {
      usage_error(cmd, "--threshold-file " + args.get("threshold-file") + ": " + error);
      return false;
    }
  } else {
    return true;  // the model's own threshold
  }
  options->override_threshold = 1;
  options->no_answer_threshold = t;
  return true;
}

bool open_session(const char* cmd, const amxqa::Model& model, const amxqa_session_options& options,
                  amxqa::Session* session) {
  *session = amxqa::Session::create(model, options);
  if (!session->ok()) {
    fail(cmd, std::string("cannot create a session: ") + session->status().name() + ": " +
                  session->status().message);
    return false;
  }
  return true;
}

}  // namespace amxqa::cli
