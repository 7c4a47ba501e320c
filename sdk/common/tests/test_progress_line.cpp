// test_progress_line.cpp — console::ProgressLine (sdk/common/progress_line.h):
// in a file every shown update is a whole line ("\n", never "\r"), at most one
// per interval plus the forced ones; on a terminal one line redrawn in place.
#include <doctest/doctest.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <thread>

#include "progress_line.h"

using amxqa::console::ProgressLine;

namespace {

// What was written to `f` so far.
std::string contents(std::FILE* f) {
  std::fflush(f);
  const long end = std::ftell(f);
  std::string s(static_cast<size_t>(end), '\0');
  std::rewind(f);
  REQUIRE(std::fread(s.data(), 1, s.size(), f) == s.size());
  std::fseek(f, 0, SEEK_END);
  return s;
}

struct TempFile {
  std::FILE* f = std::tmpfile();
  ~TempFile() {
    if (f) std::fclose(f);
  }
};

}  // namespace

TEST_SUITE("unit") {

TEST_CASE("not a terminal: the first update, then one line per interval and the forced ones, each ended by \\n") {
  TempFile t;
  REQUIRE(t.f);
  ProgressLine line(t.f, false, 0.0, 1000.0);
  CHECK_FALSE(line.terminal());
  CHECK(line.due());
  CHECK(line.show("[x] step 1/3"));
  CHECK_FALSE(line.due());
  CHECK_FALSE(line.show("[x] step 2/3"));  // within the interval: dropped
  CHECK(line.show("[x] step 3/3", true));  // forced (the last step)
  line.finish();                           // nothing to end
  CHECK(contents(t.f) == "[x] step 1/3\n[x] step 3/3\n");
}

TEST_CASE("not a terminal: a line again once the interval has passed") {
  TempFile t;
  REQUIRE(t.f);
  ProgressLine line(t.f, false, 0.0, 0.05);
  CHECK(line.show("a"));
  CHECK_FALSE(line.show("b"));
  std::this_thread::sleep_for(std::chrono::milliseconds(80));
  CHECK(line.due());
  CHECK(line.show("c"));
  CHECK(contents(t.f) == "a\nc\n");
}

TEST_CASE("a terminal: one line redrawn in place, ended by finish") {
  TempFile t;
  REQUIRE(t.f);
  ProgressLine line(t.f, true, 0.0, 1000.0);
  CHECK(line.terminal());
  CHECK(line.show("a"));
  CHECK(line.show("b"));  // the terminal interval (0 here), not the log one
  line.finish();
  line.finish();  // once only
  CHECK(contents(t.f) == "\ra\x1b[K\rb\x1b[K\n");
}

TEST_CASE("a file opened as a stream is detected as no terminal") {
  TempFile t;
  REQUIRE(t.f);
  CHECK_FALSE(ProgressLine(t.f).terminal());
}

}  // TEST_SUITE
