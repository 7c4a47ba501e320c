// cmd_serve.cpp — `amxqa serve`: the HTTP server (sdk/server/http_server.h).
#include <cstdio>
#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

#include "commands.h"
#include "http_access.h"
#include "http_server.h"
#include "worker_options.h"

namespace amxqa::cli {

namespace {

const char kHelp[] =
    "usage: amxqa serve [--model M] [--host H] [--port P] [--threads N] [--max-body-bytes B]\n"
    "                   [--max-queue Q] [--max-connections C] [--header-timeout S]\n"
    "                   [--body-timeout S] [--idle-timeout S] [--drain-timeout S]\n"
    "                   [--api-key K] [--cors-origin O] [--max-passage-tokens T]\n"
    "                   [--no-ui] [--threshold X] [--isa ISA] [--split-words]\n\n"
    "Answers questions over HTTP until SIGTERM or SIGINT, which stop accepting, answer\n"
    "every request already accepted and exit 0 (a second signal stops waiting).\n\n"
    "  POST /v1/answer  {\"question\", \"context\", \"top_k\"?, \"threshold\"?, \"max_answer_tokens\"?,\n"
    "                    \"windows\"?, \"window_overlap\"?, \"whole_words\"?} (README: Request fields;\n"
    "                   an unknown field is a 422 naming it)\n"
    "                   -> {\"answer\", \"score\", \"start\", \"end\", \"byte_start\", \"byte_end\",\n"
    "                       \"no_answer\", \"no_answer_margin\", \"no_answer_threshold\", \"windows\",\n"
    "                       \"window\", \"candidates\"}\n"
    "                   score: the answer's probability (0..1); start, end: Unicode character\n"
    "                   offsets of the answer in context (byte_start, byte_end: UTF-8 bytes);\n"
    "                   threshold: this request's no-answer threshold (no_answer iff\n"
    "                   no_answer_margin > no_answer_threshold); window: the passage window\n"
    "                   (of windows) the answer came from.\n"
    "                   candidates: up to top_k (default 1, at most 100) distinct spans by\n"
    "                   score, the first the answer (amxqa_answer_topk; more than one only\n"
    "                   for a start-pointer model such as the default).\n"
    "  GET /            a page to try the model in a browser (passage, question, the answer\n"
    "                   highlighted; the model card); it calls POST /v1/answer like any client\n"
    "  GET /health      {\"status\": \"ok\", \"workers\": N}\n"
    "  GET /v1/model    architecture, version, calibrated threshold, recipe, scores\n"
    "  GET /metrics     Prometheus text: requests by route and status, answer latency\n"
    "                   histogram, abstentions, timeouts, queue depth, busy workers\n\n"
    "Errors are {\"error\": {\"code\", \"message\"}}: 400 malformed JSON or HTTP; 422 a missing,\n"
    "empty or mistyped field, or a context over --max-passage-tokens; 413 a body over\n"
    "--max-body-bytes; 401 no or a wrong API key; 408 a request that did not arrive in\n"
    "time; 503 (with Retry-After) when the queue is full.\n"
    "The library allocates nothing while answering; the HTTP layer and the JSON do.\n"
    "A connection holds no worker while it is idle or still sending: only a complete\n"
    "request waits for one of the N sessions.\n\n"
    "  --host H                address to listen on (default 127.0.0.1)\n"
    "  --port P                TCP port (default 8080; 0 takes a free one, printed on stderr)\n"
    "  --max-body-bytes B      largest request body (default 1048576)\n"
    "  --max-queue Q           answers that may wait for a worker; more get 503 (default 64)\n"
    "  --max-connections C     open connections; past it the idlest is closed (default 1024)\n"
    "  --header-timeout S      seconds from a request's first byte to its last header (default 10)\n"
    "  --body-timeout S        seconds for the body after the headers, and for sending a\n"
    "                          reply (default 30)\n"
    "  --idle-timeout S        seconds a connection may wait between requests (default 5)\n"
    "  --drain-timeout S       after SIGTERM, seconds to finish the accepted requests (default 30)\n"
    "  --api-key K             /v1/* needs \"Authorization: Bearer K\" (default: $AMXQA_API_KEY;\n"
    "                          none: no key); /health and /metrics stay open\n"
    "  --cors-origin O         allow browser calls from O (comma-separated origins, or *):\n"
    "                          OPTIONS preflights and Access-Control-Allow-* headers\n"
    "  --no-ui                 serve no page: GET / is a 404, as every route but the API\n";

// Seconds for a timeout: more than 0, at most a day.
CLI::Option* add_seconds(App& app, const char* name, double* value) {
  return app.add_option(name, *value)->check(CLI::Range(0.001, 86400.0));
}

}  // namespace

int cmd_serve(int argc, char** argv, int first) {
  const char* cmd = "serve";
  App app("amxqa serve");
  WorkerArgs workers;
  add_worker_options(app, &workers);
  amxqa::serve::ServeOptions serve;
  std::string cors;
  app.add_option("--host", serve.host);
  app.add_option("--port", serve.port)->check(CLI::Range(0, 65535));
  // At most 1 GiB: the body is held in memory, and the HTTP parser's sizes stay far from overflow.
  app.add_unsigned("--max-body-bytes", serve.max_body_bytes)->check(CLI::Range(size_t{1}, size_t{1} << 30));
  app.add_unsigned("--max-queue", serve.max_queue)->check(CLI::Range(size_t{1}, size_t{1} << 20));
  app.add_unsigned("--max-connections", serve.max_connections)->check(CLI::Range(size_t{1}, size_t{1} << 20));
  add_seconds(app, "--header-timeout", &serve.header_timeout_s);
  add_seconds(app, "--body-timeout", &serve.body_timeout_s);
  add_seconds(app, "--idle-timeout", &serve.idle_timeout_s);
  add_seconds(app, "--drain-timeout", &serve.drain_timeout_s);
  CLI::Option* key_opt = app.add_option("--api-key", serve.api_key);
  app.add_option("--cors-origin", cors);
  bool no_ui = false;
  app.add_flag("--no-ui", no_ui);
  if (int rc = parse_args(cmd, app, argc, argv, first, std::string(kHelp) + kWorkerOptionsHelp); rc >= 0) return rc;

  // The environment keeps the key out of `ps`; the flag wins when both are set.
  if (key_opt->count() == 0) {
    const char* env = std::getenv("AMXQA_API_KEY");
    if (env != nullptr && *env != '\0') serve.api_key = env;
  }
  std::string why;
  if (!serve.api_key.empty() && !amxqa::serve::valid_api_key(serve.api_key, &why)) return usage_error(cmd, why);
  cors.erase(std::remove(cors.begin(), cors.end(), ' '), cors.end());  // "a, b" lists
  for (size_t pos = 0; !cors.empty() && pos <= cors.size();) {
    const size_t comma = std::min(cors.find(',', pos), cors.size());
    serve.cors_origins.push_back(cors.substr(pos, comma - pos));
    pos = comma + 1;
  }
  serve.ui = !no_ui;
  amxqa::serve::CorsPolicy check;
  if (!check.set_origins(serve.cors_origins, &why)) return usage_error(cmd, why);

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
