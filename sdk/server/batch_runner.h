// batch_runner.h — `amxqa batch` without its command line: answers JSONL
// input lines with one session per thread and writes one output line per
// non-blank input line, in input order, so nothing is lost or reordered.
#pragma once
#include <cstddef>
#include <cstdio>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <string_view>

#include "qa_engine.h"

namespace amxqa::serve {

// What an earlier run's output already covers (--resume). Ids are counted,
// not just noted: ids may repeat in the input, and each output line with an
// id covers one input line with that id (the first not yet covered; output
// lines are in input order).
struct DoneSet {
  std::map<std::string, size_t> ids;  // id JSON text -> output lines with it
  std::set<size_t> id_less_lines;  // error lines written for inputs without an id
  bool empty() const { return ids.empty() && id_less_lines.empty(); }
};

// Reads an existing output file into *done, first cutting off a final line
// left incomplete by an interrupted run (so appending continues cleanly).
// A missing file is an empty set. False with *error on an I/O failure.
bool load_done_set(const std::string& path, DoneSet* done, std::string* error);

struct BatchStats {
  size_t answered = 0, errors = 0, skipped = 0;
};

// Answers every non-blank line of `input` not in `done`, with pool.size()
// threads (thread i uses session i), writing lines to `out` and flushing
// after each chunk. on_progress(lines done, lines to do) is called after each
// chunk (and once before the first). False with *error when writing fails.
using ProgressFn = std::function<void(size_t done, size_t total, const BatchStats&)>;
bool run_batch(SessionPool& pool, std::string_view input, const DoneSet& done, std::FILE* out,
               const ProgressFn& on_progress, BatchStats* stats, std::string* error);

}  // namespace amxqa::serve
