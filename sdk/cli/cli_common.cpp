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

int parse_args(const char* cmd, App& app, int argc, char** argv, int first, const std::string& help_text) {
  std::string error;
  switch (app.parse_args(argc, argv, first, &error)) {
    case command_line::Parsed::kHelp:
      std::fputs(help_text.c_str(), stdout);
      return kExitOk;
    case command_line::Parsed::kError:
      return usage_error(cmd, error);
    case command_line::Parsed::kRun:
      break;
  }
  return -1;
}

void add_model_option(App& app, SessionArgs* args) { app.add_option("--model", args->model); }

int parse_model_file_args(const char* cmd, int argc, char** argv, int first, const std::string& help_text,
                          std::string* path, bool* json) {
  App app(std::string("amxqa ") + cmd);
  SessionArgs args;
  add_model_option(app, &args);
  app.add_option("MODEL", args.model);
  app.add_flag("--json", *json);
  const int rc = parse_args(cmd, app, argc, argv, first, help_text);
  *path = resolve_model_path(args);
  return rc;
}

void add_session_options(App& app, SessionArgs* args) {
  add_model_option(app, args);
  app.add_option("--isa", args->isa);
  app.add_option("--max-passage-tokens", args->max_passage_tokens)
      ->check(CLI::Range(uint32_t{1}, uint32_t{1} << 24));
  app.add_option("--max-answer-tokens", args->max_answer_tokens)->check(CLI::Range(uint32_t{1}, uint32_t{1} << 16));
  app.add_flag("--windows", args->windows);
  app.add_option("--window-overlap", args->window_overlap)->check(CLI::Range(uint32_t{0}, uint32_t{65535}));
  app.add_flag("--split-words", args->split_words);
}

void add_threshold_options(App& app, SessionArgs* args) {
  CLI::Option* t = app.add_option("--threshold", args->threshold);
  app.add_option("--threshold-file", args->threshold_file)->excludes(t);
}

using paths::is_file;

std::string resolve_model_path(const SessionArgs& args) {
  return args.model ? *args.model : paths::default_model();
}

bool parse_isa(const std::string& name, amxqa_isa* isa) {
  static const amxqa_isa all[] = {AMXQA_ISA_AUTO, AMXQA_ISA_SCALAR, AMXQA_ISA_AVX2,
                                  AMXQA_ISA_AVX512, AMXQA_ISA_AMX, AMXQA_ISA_AMX_EMULATED,
                                  AMXQA_ISA_NEON, AMXQA_ISA_NEON_DOTPROD};
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

bool open_model(const char* cmd, const SessionArgs& args, amxqa::Model* model) {
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

bool session_options(const char* cmd, const SessionArgs& args, amxqa_session_options* options) {
  *options = amxqa::default_options();
  if (args.isa && !parse_isa(*args.isa, &options->isa)) {
    usage_error(cmd, "--isa must be one of auto, scalar, avx2, avx512, amx, amx-emulated, neon, neon-dotprod");
    return false;
  }
  if (args.max_passage_tokens) options->max_passage_tokens = *args.max_passage_tokens;
  if (args.split_words) options->whole_words = 0;
  if (args.max_answer_tokens) options->max_answer_tokens = *args.max_answer_tokens;
  options->windows = args.windows ? 1 : 0;
  if (args.window_overlap) {
    if (!args.windows) {
      usage_error(cmd, "--window-overlap needs --windows");
      return false;
    }
    options->window_overlap = static_cast<uint16_t>(*args.window_overlap);
  }
  if (options->windows && options->window_overlap >= options->max_passage_tokens) {
    usage_error(cmd, "--window-overlap must be below --max-passage-tokens (" +
                         std::to_string(options->max_passage_tokens) + ")");
    return false;
  }
  return threshold_option(cmd, args, options);
}

bool threshold_option(const char* cmd, const SessionArgs& args, amxqa_session_options* options) {
  float t = 0.f;
  if (args.threshold) {
    // A string, not a CLI11 float: "inf" is allowed, nan and an empty value are not.
    const std::string& s = *args.threshold;
    char* end = nullptr;
    t = std::strtof(s.c_str(), &end);
    if (s.empty() || *end != '\0' || std::isnan(t) || t == -INFINITY) {
      usage_error(cmd, "--threshold must be a number or inf (the no-answer margin above which the model abstains)");
      return false;
    }
  } else if (args.threshold_file) {
    std::string text, error;
    if (!read_input(*args.threshold_file, &text, &error) || !eval::parse_threshold_json(text, &t, &error)) {
      usage_error(cmd, "--threshold-file " + *args.threshold_file + ": " + error);
      return false;
    }
  } else {
    return true;  // the model's own threshold
  }
  options->override_threshold = 1;
  options->no_answer_threshold = t;
  return true;
}

std::string answer_error(const amxqa::Status& status, const amxqa_session_options& options) {
  switch (status.code) {
    case AMXQA_ERR_PASSAGE_TOO_LONG:
      return std::string(status.name()) + ": the passage needs more than the " +
             std::to_string(options.max_passage_tokens) + " tokens --max-passage-tokens allows" +
             (options.windows ? "" : ": raise it, or answer in windows with --windows");
    case AMXQA_ERR_QUESTION_TOO_LONG:
      return std::string(status.name()) + ": the question needs more than the " +
             std::to_string(options.max_question_tokens) + " tokens a session allows";
    default:
      return std::string(status.name()) + ": " + status.message;
  }
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
