// run_trainer.h — amxqa-train called in-process as the tool runs it
// (trainer/main.cpp is only `return run_cli(argc, argv)`), its stdout and
// stderr captured, for the trainer tests that check what a command prints.
#pragma once
#include <doctest/doctest.h>
#include <stdlib.h>  // mkdtemp
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "cli/commands.h"

namespace amxqa::train::test {

struct Run {
  int rc = 0;
  std::string out, err;
};

// A fresh folder under /tmp, removed with everything in it at scope exit.
struct TempDir {
  std::string path;
  TempDir() {
    char t[] = "/tmp/amxqa-trainer-test-XXXXXX";
    REQUIRE(mkdtemp(t) != nullptr);
    path = t;
  }
  ~TempDir() { std::system(("rm -rf '" + path + "'").c_str()); }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
};

inline std::string read_all(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

// run_cli with stdout and stderr captured into files of `dir`.
inline Run run_trainer(const std::string& dir, std::vector<std::string> args) {
  args.insert(args.begin(), "amxqa-train");
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::fflush(stdout);
  std::fflush(stderr);
  const int saved_out = dup(1), saved_err = dup(2);
  REQUIRE(std::freopen((dir + "/stdout.txt").c_str(), "w", stdout));
  REQUIRE(std::freopen((dir + "/stderr.txt").c_str(), "w", stderr));
  Run r;
  r.rc = run_cli(static_cast<int>(args.size()), argv.data());
  std::fflush(stdout);
  std::fflush(stderr);
  dup2(saved_out, 1);
  dup2(saved_err, 2);
  close(saved_out);
  close(saved_err);
  r.out = read_all(dir + "/stdout.txt");
  r.err = read_all(dir + "/stderr.txt");
  return r;
}

}  // namespace amxqa::train::test
