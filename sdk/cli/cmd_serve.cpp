// cmd_serve.cpp — `amxqa serve`: the HTTP server (sdk/server/http_server.h).
#include <cstdio>
#include <string>
#include <vector>

#include "commands.h"
#include "http_server.h"
#include "worker_options.h"

namespace amxqa::cli {

namespace {

const char kHelp[] =
    "usage: amxqa serve [--model M] [--host H] [--port P] [--threads N] [--max-body-bytes B]\n"
    "                   [--max-passage-tokens T] [--threshold X] [--isa ISA] [--split-words]\n\n"
    "Answers questions over HTTP until SIGTERM or SIGINT, which finish the requests in\n"
    "flight and exit 0.\n\n"
    "  POST /v1/answer  {\"question\", \"context\", \"top_k\"?, \"threshold\"?}\n"
    "                   -> {\"answer\", \"score\", \"start\", \"end\", \"no_answer\", \"candidates\"}\n"
    "                   score: the answer's probability (0..1); start, end: byte offsets of\n"
    "                   the answer in context; threshold: this request's no-answer threshold.\n"
    "                   candidates: up to top_k (default 1, at most 100) distinct spans by\n"
    "                   score, the first the answer (amxqa_answer_topk; more than one only\n"
    "                   for a start-pointer model such as the default).\n"
    "  GET /health      {\"status\": \"ok\", \"workers\": N}\n"
    "  GET /v1/model    architecture, version, calibrated threshold, recipe, scores\n\n"
    "Errors are {\"error\": {\"code\", \"message\"}}: 400 malformed JSON; 422 a missing, empty\n"
    "or mistyped field, or a context over --max-passage-tokens; 413 a body over --max-body-bytes.\n"
    "Send Content-Type: application/json (httplib caps form-encoded bodies at 8 KiB).\n"
    "The library allocates nothing while answering; the HTTP layer and the JSON do.\n\n"
    "  --host H                address to listen on (default 127.0.0.1)\n"
    "  --port P                TCP port (default 8080; 0 takes a free one, printed on stderr)\n"
    "  --max-body-bytes B      largest request body (default 1048576)\n";

}  // namespace

int cmd_serve(int argc, char** argv, int first) {
  const char* cmd = "serve";
  App app("amxqa serve");
  WorkerArgs workers;
  add_worker_options(app, &workers);
  amxqa::serve::ServeOptions serve;
  app.add_option("--host", serve.host);
  app.add_option("--port", serve.port)->check(CLI::Range(0, 65535));
  app.add_option("--max-body-bytes", serve.max_body_bytes)->check(CLI::PositiveNumber);
  if (int rc = parse_args(cmd, app, argc, argv, first, std::string(kHelp) + kWorkerOptionsHelp); rc >= 0) return rc;

  amxqa_session_options options;
  if (!session_options(cmd, workers.session, &options)) return kExitUsage;
  amxqa::Model model;
  amxqa::serve::SessionPool pool;
  if (!open_workers(cmd, workers, options, &model, &pool)) return kExitFailure;
  std::string error;
  if (!amxqa::serve::serve_http(model, pool, serve, &error)) return fail(cmd, error);
  return kExitOk;
}

}  // namespace amxqa::cli
