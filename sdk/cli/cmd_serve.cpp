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
  ArgSpec spec{{kWorkerOptionNames, kWorkerOptionNames + kWorkerOptionCount}, {"split-words"}, 0, 0};
  for (const char* name : {"host", "port", "max-body-bytes"}) spec.options.push_back(name);
  Args args(spec, argc, argv, first);
  if (int rc = check_args(cmd, args, (std::string(kHelp) + kWorkerOptionsHelp).c_str()); rc >= 0) return rc;

  amxqa::serve::ServeOptions serve;
  serve.host = args.get("host", serve.host);
  bool ok = true;
  const unsigned long long port = args.get_uint("port", 8080, &ok);
  if (!ok || port > 65535) return usage_error(cmd, "--port must be 0..65535");
  serve.port = static_cast<int>(port);
  const unsigned long long body = args.get_uint("max-body-bytes", serve.max_body_bytes, &ok);
  if (!ok || body == 0) return usage_error(cmd, "--max-body-bytes must be a positive integer");
  serve.max_body_bytes = static_cast<size_t>(body);

  amxqa_session_options options;
  size_t threads = 1;
  if (!parse_worker_options(cmd, args, &options, &threads)) return kExitUsage;
  amxqa::Model model;
  amxqa::serve::SessionPool pool;
  if (!open_workers(cmd, args, options, threads, &model, &pool)) return kExitFailure;
  std::string error;
  if (!amxqa::serve::serve_http(model, pool, serve, &error)) return fail(cmd, error);
  return kExitOk;
}

}  // namespace amxqa::cli
