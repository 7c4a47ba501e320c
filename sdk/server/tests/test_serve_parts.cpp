// test_serve_parts.cpp — the pieces of `amxqa serve` / `amxqa batch` without
// sockets: the request parser and its error classes, the batch line formats,
// the JSON writers (suite "unit"); and, with the tiny test model
// ($AMXQA_TEST_MODEL), that answering a request allocates nothing once warm
// and that a per-request threshold does not outlive its request ("integration").
#include <doctest/doctest.h>

#include <cmath>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>

#include "batch_lines.h"
#include "qa_engine.h"
#include "qa_request.h"
#include "qa_response.h"
#include "support/alloc_counter.h"

using namespace amxqa::serve;
using nlohmann::json;

namespace {

QaError parse(const std::string& text, QaRequest* req, size_t max_bytes = 0) {
  return parse_qa_request(text, ParseOptions{max_bytes, false}, req);
}

std::string code_of(const std::string& text) {
  QaRequest req;
  return parse(text, &req).code;
}

}  // namespace

TEST_SUITE("unit") {
  TEST_CASE("a full request parses") {
    QaRequest r;
    const QaError e = parse(R"({"question":"Who?","context":"Ann did.","top_k":3,"threshold":-1.5,)"
                            R"("max_answer_tokens":8,"windows":true,"window_overlap":16,"whole_words":false})",
                            &r);
    REQUIRE(e.ok());
    CHECK(r.question == "Who?");
    CHECK(r.context == "Ann did.");
    CHECK(r.top_k == 3);
    CHECK(r.has_threshold);
    CHECK(r.threshold == -1.5f);
    CHECK(r.id_json.empty());
    CHECK(r.max_answer_tokens == 8u);
    CHECK(r.windows == true);
    CHECK(r.window_overlap == 16u);
    CHECK(r.whole_words == false);
    amxqa_session_options base;
    amxqa_session_options_default(&base);
    amxqa_session_options o;
    REQUIRE(request_options(r, base, &o).ok());
    CHECK(o.max_answer_tokens == 8);
    CHECK(o.windows == 1);
    CHECK(o.window_overlap == 16);
    CHECK(o.whole_words == 0);
    CHECK(o.max_passage_tokens == base.max_passage_tokens);
  }

  TEST_CASE("an unknown (e.g. misspelt) field is 422 unknown_field naming it") {
    QaRequest r;
    const QaError e = parse(R"({"question":"Who?","context":"Ann did.","qestion":"x"})", &r);
    CHECK(e.http_status == 422);
    CHECK(e.code == "unknown_field");
    CHECK(e.message.find("\"qestion\"") == 0);
    CHECK(e.message.find("whole_words") != std::string::npos);  // lists the fields there are
    CHECK(parse_batch_line(R"({"id":4,"question":"q","context":"c","extra":[1]})", &r).code == "unknown_field");
    CHECK(r.id_json == "4");  // still reported under its id
  }

  TEST_CASE("session-option fields out of range or over the session's caps name the field") {
    QaRequest r;
    CHECK(code_of(R"({"question":"q","context":"c","windows":1})") == "wrong_type");
    CHECK(code_of(R"({"question":"q","context":"c","whole_words":"no"})") == "wrong_type");
    CHECK(code_of(R"({"question":"q","context":"c","max_answer_tokens":0})") == "invalid_field");
    CHECK(code_of(R"({"question":"q","context":"c","window_overlap":-1})") == "invalid_field");
    CHECK(code_of(R"({"question":"q","context":"c","window_overlap":70000})") == "invalid_field");
    amxqa_session_options base;
    amxqa_session_options_default(&base);
    base.max_passage_tokens = 64;
    amxqa_session_options o;
    REQUIRE(parse(R"({"question":"q","context":"c","max_answer_tokens":33})", &r).ok());
    QaError e = request_options(r, base, &o);
    CHECK((e.code == "invalid_field" && e.message.find("max_answer_tokens") != std::string::npos &&
           e.message.find("--max-answer-tokens") != std::string::npos));
    REQUIRE(parse(R"({"question":"q","context":"c","windows":true,"window_overlap":64})", &r).ok());
    e = request_options(r, base, &o);
    CHECK((e.code == "invalid_field" && e.message.find("window_overlap") != std::string::npos));
  }

  TEST_CASE("offsets: start/end in characters, byte_start/byte_end in bytes") {
    const std::string context = "Caf\xc3\xa9 \xe6\x9d\xb1\xe4\xba\xac \xf0\x9f\x8c\x8a sea";  // Café 東京 🌊 sea
    QaAnswer a;
    set_span(context, 6, 12, &a);  // 東京
    CHECK(a.text == "\xe6\x9d\xb1\xe4\xba\xac");
    CHECK(a.byte_start == 6);
    CHECK(a.byte_end == 12);
    CHECK(a.start == 5);
    CHECK(a.end == 7);
    set_span(context, 18, 21, &a);  // sea, after a 4-byte character
    CHECK(a.start == 10);
    CHECK(a.end == 13);
    set_span(context, 40, 50, &a);  // clamped to the context
    CHECK(a.text.empty());
    CHECK(a.byte_start == context.size());
    const json body = json::parse(answer_body(a));
    CHECK(body.contains("byte_start"));
    CHECK(body.contains("byte_end"));
  }

  TEST_CASE("optional fields default, null counts as absent") {
    QaRequest r;
    REQUIRE(parse(R"({"question":"q","context":"c","top_k":null,"threshold":null})", &r).ok());
    CHECK(r.top_k == 1);
    CHECK_FALSE(r.has_threshold);
  }

  TEST_CASE("each bad input class has its status and code") {
    QaRequest r;
    CHECK(parse("{", &r).http_status == 400);
    CHECK(code_of("{") == "malformed_json");
    CHECK(code_of("") == "malformed_json");
    CHECK(code_of("\"just a string\"") == "malformed_json");
    CHECK(code_of(R"({"context":"c"})") == "missing_field");
    CHECK(code_of(R"({"question":"q"})") == "missing_field");
    CHECK(code_of(R"({"question":"","context":"c"})") == "empty_field");
    CHECK(code_of(R"({"question":"q","context":""})") == "empty_field");
    CHECK(code_of(R"({"question":1,"context":"c"})") == "wrong_type");
    CHECK(code_of(R"({"question":"q","context":{}})") == "wrong_type");
    CHECK(code_of(R"({"question":"q","context":"c","top_k":1.5})") == "wrong_type");
    CHECK(code_of(R"({"question":"q","context":"c","top_k":0})") == "invalid_field");
    CHECK(code_of(R"({"question":"q","context":"c","top_k":-2})") == "invalid_field");
    CHECK(code_of(R"({"question":"q","context":"c","top_k":101})") == "invalid_field");
    CHECK(code_of(R"({"question":"q","context":"c","top_k":18446744073709551615})") == "invalid_field");
    CHECK(code_of(R"({"question":"q","context":"c","threshold":"1"})") == "wrong_type");
    CHECK(code_of(R"({"question":"q","context":"c","threshold":-1e39})") == "invalid_field");
    CHECK(code_of(R"({"question":"q","context":"c","threshold":1e999})") == "malformed_json");  // over a double
    CHECK(parse(R"({"context":"c"})", &r).http_status == 422);
  }

  TEST_CASE("a threshold over a float's range is +inf: never abstain") {
    QaRequest r;
    REQUIRE(parse(R"({"question":"q","context":"c","threshold":1e39})", &r).ok());
    CHECK(std::isinf(r.threshold));
    CHECK(r.threshold > 0);
  }

  TEST_CASE("the size limit is checked before parsing") {
    QaRequest r;
    const QaError e = parse("{not even json", &r, 4);
    CHECK(e.http_status == 413);
    CHECK(e.code == "body_too_large");
    CHECK(e.message.find("--max-body-bytes") != std::string::npos);
    CHECK(parse(R"({"question":"q","context":"c"})", &r, 30).ok());  // exactly the limit
  }

  TEST_CASE("batch lines need an id, kept as JSON, and keep it on later errors") {
    QaRequest r;
    REQUIRE(parse_batch_line("{\"id\":\"a\\u00e9\",\"question\":\"q\",\"context\":\"c\"}\r", &r).ok());
    CHECK(r.id_json == "\"a\xc3\xa9\"");
    REQUIRE(parse_batch_line(R"({"id":42,"question":"q","context":"c"})", &r).ok());
    CHECK(r.id_json == "42");
    CHECK(parse_batch_line(R"({"question":"q","context":"c"})", &r).code == "missing_field");
    CHECK(parse_batch_line(R"({"id":1.5,"question":"q","context":"c"})", &r).code == "wrong_type");
    CHECK(parse_batch_line(R"({"id":"","question":"q","context":"c"})", &r).code == "empty_field");
    CHECK(parse_batch_line(R"({"id":"x","context":"c"})", &r).code == "missing_field");
    CHECK(r.id_json == "\"x\"");
  }

  TEST_CASE("a one-line document's parse error gives the column, not line 1") {
    QaRequest r;
    const QaError e = parse_batch_line(R"({"id":)", &r);
    CHECK(e.message.find("at column") != std::string::npos);
    CHECK(e.message.find("line 1") == std::string::npos);
  }

  TEST_CASE("answer and error bodies have the documented fields") {
    QaAnswer a;
    a.text = "Ann";
    a.score = 0.5f;
    a.start = 0;
    a.end = 3;
    const json body = json::parse(answer_body(a));
    CHECK(body["answer"] == "Ann");
    CHECK(body["start"] == 0);
    CHECK(body["end"] == 3);
    CHECK(body["no_answer"] == false);
    REQUIRE(body["candidates"].size() == 1);
    CHECK(body["candidates"][0]["answer"] == "Ann");
    CHECK(body["windows"] == 1);
    CHECK(body["window"] == 0);
    a.no_answer = true;
    a.no_answer_margin = 2.5f;
    a.no_answer_threshold = 1.0f;
    a.windows = 3;
    a.window = 2;
    const json abstained = json::parse(answer_body(a));
    CHECK(abstained["candidates"].empty());
    CHECK(abstained["no_answer_margin"] == 2.5);
    CHECK(abstained["no_answer_threshold"] == 1.0);
    CHECK(abstained["windows"] == 3);
    CHECK(abstained["window"] == 2);
    a.no_answer_threshold = INFINITY;  // JSON has no infinity: null, still valid JSON
    CHECK(json::parse(answer_body(a))["no_answer_threshold"].is_null());
    const json err = json::parse(error_body(make_error(422, "empty_field", "\"question\" is empty")));
    CHECK(err["error"]["code"] == "empty_field");
    CHECK(err["error"]["message"] == "\"question\" is empty");
  }

  TEST_CASE("invalid UTF-8 in an answer still gives valid JSON") {
    QaAnswer a;
    a.text = "caf\xc3";  // a span cut inside a character
    CHECK_NOTHROW(json::parse(answer_body(a)));
    CHECK_NOTHROW(json::parse(batch_answer_line("1", a)));
  }

  TEST_CASE("batch output lines read back as what --resume skips") {
    QaAnswer a;
    DoneKey key;
    REQUIRE(read_output_line(batch_answer_line("\"q1\"", a), &key));
    CHECK(key.id_json == "\"q1\"");
    REQUIRE(read_output_line(batch_error_line("7", 3, make_error(422, "wrong_type", "x")), &key));
    CHECK(key.id_json == "7");
    const std::string idless = batch_error_line("", 5, make_error(400, "malformed_json", "x"));
    CHECK(json::parse(idless)["id"].is_null());
    CHECK(json::parse(idless)["error"]["message"] == "line 5: x");
    REQUIRE(read_output_line(idless, &key));
    CHECK(key.id_json.empty());
    CHECK(key.line_no == 5);
    CHECK_FALSE(read_output_line("{\"id\":null}", &key));
    CHECK_FALSE(read_output_line("garbage", &key));
    CHECK_FALSE(read_output_line("", &key));
  }
}

TEST_SUITE("integration") {
  TEST_CASE("answering a request allocates nothing once warm; its threshold ends with it") {
    const char* path = std::getenv("AMXQA_TEST_MODEL");
    REQUIRE_MESSAGE(path != nullptr, "set AMXQA_TEST_MODEL to the tiny test model");
    amxqa::Model model = amxqa::Model::open_file(path);
    REQUIRE(model.ok());
    SessionPool pool;
    std::string error;
    REQUIRE_MESSAGE(pool.open(model, amxqa::default_options(), 2, &error), error);
    REQUIRE(pool.size() == 2);

    QaRequest req;
    REQUIRE(parse(R"({"question":"Who designed it?","context":"The tower was designed by James Douglass."})", &req).ok());
    QaAnswer first, again;
    Worker& w = pool.at(0);
    REQUIRE(answer_request(w, req, &first).ok());
    REQUIRE(answer_request(w, req, &again).ok());  // warm: `again` holds an answer's capacity
    amxqa::test::AllocScope scope;
    const QaError e = answer_request(w, req, &again);
    AMXQA_CHECK_NO_ALLOCATIONS(scope);
    REQUIRE(e.ok());
    CHECK(again.text == first.text);
    CHECK(again.score >= 0.f);
    CHECK(again.score <= 1.f);

    QaRequest abstain = req;
    abstain.has_threshold = true;
    abstain.threshold = -1000.f;
    QaAnswer none;
    REQUIRE(answer_request(w, abstain, &none).ok());
    scope.reset();  // setting and restoring the threshold allocates nothing either
    REQUIRE(answer_request(w, abstain, &none).ok());
    AMXQA_CHECK_NO_ALLOCATIONS(scope);
    CHECK(none.no_answer);
    CHECK(none.text.empty());
    REQUIRE(answer_request(w, req, &again).ok());
    CHECK(again.text == first.text);  // the session's own threshold is back
    CHECK(again.no_answer == first.no_answer);

    QaRequest too_long = req;
    too_long.context.clear();
    for (int i = 0; i < 5000; ++i) too_long.context += "word ";
    const QaError long_error = answer_request(pool.at(1), too_long, &none);
    CHECK(long_error.http_status == 422);
    CHECK(long_error.code == "passage_too_long");
    CHECK(long_error.message.find("--max-passage-tokens") != std::string::npos);
  }
}
