#include "gz_text.h"

#include <zlib.h>

#include <cstdio>
#include <memory>
#include <stdexcept>
#include <vector>

namespace amxqa::eval {
namespace {

struct GzCloser {
  void operator()(gzFile_s* f) const { if (f) gzclose(f); }
};
using GzPtr = std::unique_ptr<gzFile_s, GzCloser>;

GzPtr open_gz(const std::string& path) {
  GzPtr f(gzopen(path.c_str(), "rb"));
  if (!f) throw std::runtime_error("cannot open " + path);
  gzbuffer(f.get(), 1 << 17);
  return f;
}

void check_gz(gzFile f, const std::string& path) {
  int err = 0;
  const char* msg = gzerror(f, &err);
  if (err == Z_OK || err == Z_BUF_ERROR) return;
  // zlib's message starts with the path itself; it is said once.
  std::string why = msg ? msg : "";
  if (why.compare(0, path.size() + 2, path + ": ") == 0) why.erase(0, path.size() + 2);
  throw std::runtime_error(path + ": not a valid gzip file (" + (why.empty() ? "zlib error" : why) + ")");
}

bool blank(const std::string& line) {
  for (char c : line)
    if (c != ' ' && c != '\t' && c != '\r' && c != '\n' && c != '\f' && c != '\v') return false;
  return true;
}

}  // namespace

uint64_t fnv1a64(const void* data, size_t len, uint64_t h) {
  const auto* p = static_cast<const unsigned char*>(data);
  for (size_t i = 0; i < len; ++i) {
    h ^= p[i];
    h *= 0x100000001b3ull;
  }
  return h;
}

std::string read_gz(const std::string& path, uint64_t max_bytes) {
  GzPtr f = open_gz(path);
  std::string out;
  std::vector<char> buf(1 << 17);
  while (max_bytes == 0 || out.size() < max_bytes) {
    int n = gzread(f.get(), buf.data(), static_cast<unsigned>(buf.size()));
    if (n < 0) {
      check_gz(f.get(), path);
      throw std::runtime_error(path + ": read error");
    }
    if (n == 0) break;
    out.append(buf.data(), static_cast<size_t>(n));
  }
  check_gz(f.get(), path);
  if (max_bytes && out.size() > max_bytes) out.resize(max_bytes);
  return out;
}

uint64_t for_each_paragraph(const std::string& path, uint64_t max_bytes, bool join_lines,
                            const std::function<bool(const std::string&)>& on_paragraph) {
  GzPtr f = open_gz(path);
  std::vector<char> buf(1 << 16);
  std::string line, para;
  uint64_t total = 0;
  bool stop = false;
  auto flush = [&] {
    if (!para.empty()) stop = !on_paragraph(para);
    para.clear();
  };
  auto add_line = [&](std::string& l) {
    while (!l.empty() && (l.back() == '\n' || l.back() == '\r')) l.pop_back();
    if (blank(l)) { flush(); return; }
    if (!para.empty()) para += join_lines ? ' ' : '\n';
    if (join_lines) {
      size_t b = 0;
      while (b < l.size() && (l[b] == ' ' || l[b] == '\t')) ++b;
      para.append(l, b, std::string::npos);
    } else {
      para += l;
    }
  };
  while (!stop && (max_bytes == 0 || total < max_bytes)) {
    // gzgets returns at most buf.size()-1 bytes: a long line arrives in parts.
    if (!gzgets(f.get(), buf.data(), static_cast<int>(buf.size()))) break;
    size_t n = std::char_traits<char>::length(buf.data());
    total += n;
    line.append(buf.data(), n);
    if (n > 0 && buf[n - 1] == '\n') {
      add_line(line);
      line.clear();
    }
  }
  if (!stop && !line.empty()) add_line(line);
  if (!stop) flush();
  check_gz(f.get(), path);
  return total;
}

std::string data_digest(const std::string& path) {
  std::string base = path.substr(path.find_last_of('/') == std::string::npos ? 0 : path.find_last_of('/') + 1);
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return base + " (missing)";  // the file name only: a model file carries no folder
  std::vector<unsigned char> buf(1 << 20);
  size_t n = std::fread(buf.data(), 1, buf.size(), f);
  std::fseek(f, 0, SEEK_END);
  long size = std::ftell(f);
  std::fclose(f);
  char hex[32];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(fnv1a64(buf.data(), n)));
  return base + " fnv1a64-1MiB=" + hex + " bytes=" + std::to_string(size);
}

}  // namespace amxqa::eval
