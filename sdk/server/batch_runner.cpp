#include "batch_runner.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <exception>
#include <thread>
#include <vector>

#include "batch_lines.h"

namespace amxqa::serve {

namespace {

// Calls fn(line_no, line) for each line of text (1-based numbers, '\n' cut).
template <class Fn>
void for_each_line(std::string_view text, Fn&& fn) {
  size_t line_no = 0;
  while (!text.empty()) {
    const size_t nl = text.find('\n');
    fn(++line_no, text.substr(0, nl));
    text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
  }
}

bool blank(std::string_view line) { return line.find_first_not_of(" \t\r") == std::string_view::npos; }

struct Item {
  size_t line_no;
  std::string_view text;
};

// True when an earlier run's output already has this line; each output line
// of an id covers one input line of it (*done counts them down).
bool already_done(const Item& item, DoneSet* done) {
  QaRequest req;
  parse_batch_line(item.text, &req);  // an error still fills id_json when the id was readable
  if (req.id_json.empty()) return done->id_less_lines.count(item.line_no) != 0;
  auto it = done->ids.find(req.id_json);
  if (it == done->ids.end() || it->second == 0) return false;
  --it->second;
  return true;
}

// One output line for one input line; never throws (an exception becomes an error line).
std::string answer_line(Worker& w, const Item& item, QaRequest* req, QaAnswer* ans, bool* is_error) {
  try {
    QaError e = parse_batch_line(item.text, req);
    if (e.ok()) e = answer_request(w, *req, ans);
    *is_error = !e.ok();
    return e.ok() ? batch_answer_line(req->id_json, *ans) : batch_error_line(req->id_json, item.line_no, e);
  } catch (const std::exception& ex) {
    *is_error = true;
    return batch_error_line(req->id_json, item.line_no, make_error(500, "internal", ex.what()));
  }
}

}  // namespace

bool load_done_set(const std::string& path, DoneSet* done, std::string* error) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) {
    if (errno == ENOENT) return true;
    *error = "cannot read '" + path + "': " + std::strerror(errno);
    return false;
  }
  std::string text;
  char buf[1 << 16];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) text.append(buf, n);
  const bool failed = std::ferror(f) != 0;
  std::fclose(f);
  if (failed) {
    *error = "error reading '" + path + "'";
    return false;
  }
  // A run killed mid-write leaves a partial last line: drop it, it is redone.
  const size_t keep = text.rfind('\n') == std::string::npos ? 0 : text.rfind('\n') + 1;
  if (keep != text.size()) {
    if (::truncate(path.c_str(), static_cast<off_t>(keep)) != 0) {
      *error = "cannot cut the incomplete last line of '" + path + "': " + std::strerror(errno);
      return false;
    }
    text.resize(keep);
  }
  for_each_line(text, [&](size_t, std::string_view line) {
    DoneKey key;
    if (!read_output_line(line, &key)) return;
    if (!key.id_json.empty()) ++done->ids[key.id_json];
    else done->id_less_lines.insert(key.line_no);
  });
  return true;
}

bool run_batch(SessionPool& pool, std::string_view input, const DoneSet& done, std::FILE* out,
               const ProgressFn& on_progress, BatchStats* stats, std::string* error) {
  std::vector<Item> items;
  DoneSet left = done;  // counted down as input lines are matched
  for_each_line(input, [&](size_t line_no, std::string_view line) {
    if (blank(line)) return;
    const Item item{line_no, line};
    if (!left.empty() && already_done(item, &left)) {
      ++stats->skipped;
      return;
    }
    items.push_back(item);
  });
  const size_t threads = std::max<size_t>(1, pool.size());
  // Big enough that the tail of a chunk (threads idle while the last lines
  // finish) costs little; small enough that an interrupted run loses little.
  const size_t chunk = 32 * threads;
  std::vector<std::string> lines(chunk);
  std::vector<char> is_error(chunk);
  on_progress(0, items.size(), *stats);
  for (size_t base = 0; base < items.size(); base += chunk) {
    const size_t n = std::min(chunk, items.size() - base);
    std::atomic<size_t> next{0};
    auto work = [&](size_t t) {
      QaRequest req;
      QaAnswer ans;
      bool err = false;
      for (size_t i; (i = next.fetch_add(1)) < n;) {
        lines[i] = answer_line(pool.at(t), items[base + i], &req, &ans, &err);
        is_error[i] = err;
      }
    };
    std::vector<std::thread> helpers;
    for (size_t t = 1; t < threads; ++t) helpers.emplace_back(work, t);
    work(0);
    for (std::thread& h : helpers) h.join();
    for (size_t i = 0; i < n; ++i) {
      std::fwrite(lines[i].data(), 1, lines[i].size(), out);
      std::fputc('\n', out);
      ++(is_error[i] ? stats->errors : stats->answered);
    }
    if (std::fflush(out) != 0 || std::ferror(out)) {
      *error = std::string("error writing the output: ") + std::strerror(errno);
      return false;
    }
    on_progress(base + n, items.size(), *stats);
  }
  return true;
}

}  // namespace amxqa::serve
