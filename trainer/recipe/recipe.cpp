#include "recipe/recipe.h"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <sys/stat.h>
#include <unistd.h>

namespace amxqa::train {
namespace {

std::string trim(const std::string& s) {
  size_t b = 0, e = s.size();
  while (b < e && (s[b] == ' ' || s[b] == '\t' || s[b] == '\r')) ++b;
  while (e > b && (s[e - 1] == ' ' || s[e - 1] == '\t' || s[e - 1] == '\r')) --e;
  return s.substr(b, e - b);
}

bool valid_key(const std::string& k) {
  if (k.empty()) return false;
  for (char c : k)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.')) return false;
  return true;
}

bool file_exists(const std::string& p) {
  struct stat st;
  return ::stat(p.c_str(), &st) == 0;
}

std::string dirname_of(const std::string& p) {
  size_t slash = p.find_last_of('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return p.substr(0, slash);
}

std::string absolute(const std::string& p) {
  if (!p.empty() && p[0] == '/') return p;
  char buf[4096];
  if (!::getcwd(buf, sizeof buf)) return p;
  return std::string(buf) + "/" + p;
}

}  // namespace

std::string find_repo_root(const std::string& start) {
  std::string dir = absolute(start);
  for (int i = 0; i < 64; ++i) {
    if (file_exists(dir + "/schemas/MODEL.md")) return dir;
    if (dir == "/" || dir.empty()) break;
    dir = dirname_of(dir);
  }
  return "";
}

namespace {

// Walks recipe text line by line: on_key(line, full_key, value) for each
// `key = value` line (full_key "section.key", or the bare key before the first
// header), on_other(line) for comments, blank lines and headers. Throws
// std::runtime_error("NAME:LINE: why") on a malformed line.
template <class OnKey, class OnOther>
void walk_lines(const std::string& text, const std::string& name, OnKey&& on_key, OnOther&& on_other) {
  std::istringstream in(text);
  std::string raw, section;
  int lineno = 0;
  while (std::getline(in, raw)) {
    ++lineno;
    // A '#' starts a comment anywhere (values never need a literal '#').
    std::string line = raw.substr(0, raw.find('#'));
    line = trim(line);
    if (line.empty()) {
      on_other(raw);
      continue;
    }
    auto fail = [&](const std::string& why) {
      throw std::runtime_error(name + ":" + std::to_string(lineno) + ": " + why);
    };
    if (line[0] == '[') {
      if (line.back() != ']') fail("section header without ']'");
      section = trim(line.substr(1, line.size() - 2));
      if (!valid_key(section) || section.find('.') != std::string::npos)
        fail("bad section name '" + section + "'");
      on_other(raw);
      continue;
    }
    size_t eq = line.find('=');
    if (eq == std::string::npos) fail("expected 'key = value'");
    std::string key = trim(line.substr(0, eq)), value = trim(line.substr(eq + 1));
    if (!valid_key(key)) fail("bad key '" + key + "'");
    const std::string full = section.empty() ? key : section + "." + key;
    if (!on_key(raw, full, value)) fail("duplicate key '" + full + "'");
  }
}

}  // namespace

Recipe Recipe::parse(const std::string& text, const std::string& name) {
  Recipe r;
  r.name_ = name;
  r.text_ = text;
  walk_lines(
      text, name,
      [&](const std::string&, const std::string& full, const std::string& value) {
        return r.values_.emplace(full, value).second;
      },
      [](const std::string&) {});
  return r;
}

Recipe Recipe::load(const std::string& path, int depth) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw std::runtime_error("cannot read recipe " + path);
  std::stringstream ss;
  ss << f.rdbuf();
  std::string base = path.substr(path.find_last_of('/') == std::string::npos ? 0 : path.find_last_of('/') + 1);
  if (base.size() > 7 && base.compare(base.size() - 7, 7, ".recipe") == 0) base.resize(base.size() - 7);
  Recipe r = parse(ss.str(), base);
  std::string root = find_repo_root(dirname_of(path));
  if (root.empty()) root = find_repo_root(".");
  r.repo_root_ = root.empty() ? absolute(".") : root;
  if (!r.has("base")) return r;
  // `base = NAME`: start from NAME.recipe in the same folder and let this
  // recipe's values replace its. The merged recipe dumps as flat values.
  if (depth >= 8) throw std::runtime_error(path + ": recipe bases nest deeper than 8 (a cycle?)");
  Recipe merged = load(dirname_of(path) + "/" + r.str("base") + ".recipe", depth + 1);
  for (const auto& kv : r.values_)
    if (kv.first != "base") merged.values_[kv.first] = kv.second;
  merged.name_ = r.name_;
  merged.text_ = r.text_;
  merged.repo_root_ = r.repo_root_;
  merged.overridden_ = true;
  return merged;
}

bool Recipe::is_run_only_key(const std::string& key) { return key == "outputs.dir" || key == "threads"; }

std::string Recipe::dump() const {
  if (!overridden_ && !run_keys_set_) return text_;
  return dump_values(false);
}

std::string Recipe::dump_values(bool for_model) const {
  std::string top, rest, current;
  for (const auto& kv : values_) {
    if (for_model && is_run_only_key(kv.first)) continue;
    const std::string value = for_model ? symbolic_path(kv.second) : kv.second;
    size_t dot = kv.first.find('.');
    if (dot == std::string::npos) {
      top += kv.first + " = " + value + "\n";
      continue;
    }
    std::string sec = kv.first.substr(0, dot);
    if (sec != current) {
      rest += "\n[" + sec + "]\n";
      current = sec;
    }
    rest += kv.first.substr(dot + 1) + " = " + value + "\n";
  }
  return "# " + name_ + " (merged: base recipe and overrides applied)\n" + top + rest;
}

std::string Recipe::model_text() const {
  if (overridden_) return dump_values(true);
  // The original text, comments kept, less its run-only lines; a line whose
  // value names a machine path is rewritten with the symbolic one.
  std::string out;
  walk_lines(
      text_, name_,
      [&](const std::string& raw, const std::string& full, const std::string& value) {
        if (is_run_only_key(full)) return true;
        const std::string symbolic = symbolic_path(value);
        if (symbolic == value) {
          out += raw + "\n";
        } else {
          const size_t dot = full.find('.');
          out += (dot == std::string::npos ? full : full.substr(dot + 1)) + " = " + symbolic + "\n";
        }
        return true;
      },
      [&](const std::string& raw) { out += raw + "\n"; });
  return out;
}

std::string Recipe::symbolic_path(const std::string& value) const {
  namespace fs = std::filesystem;
  auto folder = [](const std::string& p) {
    std::error_code ec;
    std::string f = fs::weakly_canonical(fs::path(p), ec).string();
    if (ec) f = p;
    return f.empty() || f.back() == '/' ? f : f + "/";
  };
  const char* env = std::getenv("AMXQA_DATA");
  const std::string data = folder(env && *env ? env : repo_root_ + "/../shared/data"), repo = folder(repo_root_);
  // Word by word: list values (data.files) hold several paths.
  std::string out, word;
  auto flush = [&] {
    if (!word.empty() && word[0] == '/') {
      const std::string p = folder(word);
      const std::string w = p.empty() ? word : p.substr(0, p.size() - 1);
      if (w.compare(0, data.size(), data) == 0) word = "${AMXQA_DATA}/" + w.substr(data.size());
      else if (w.compare(0, repo.size(), repo) == 0) word = w.substr(repo.size());
      else word = fs::path(w).filename().string();
    }
    out += word;
    word.clear();
  };
  for (char c : value) {
    if (c == ' ' || c == '\t' || c == ',') {
      flush();
      out += c;
    } else {
      word += c;
    }
  }
  flush();
  return out;
}

std::string Recipe::str(const std::string& key, const std::string& def) const {
  auto it = values_.find(key);
  return it == values_.end() ? def : it->second;
}

int64_t Recipe::integer(const std::string& key, int64_t def) const {
  auto it = values_.find(key);
  if (it == values_.end() || it->second.empty()) return def;
  std::string v;
  for (char c : it->second) if (c != '_') v += c;
  double mult = 1;
  if (!v.empty() && (v.back() == 'k' || v.back() == 'K')) { mult = 1e3; v.pop_back(); }
  else if (!v.empty() && (v.back() == 'M')) { mult = 1e6; v.pop_back(); }
  else if (!v.empty() && (v.back() == 'G')) { mult = 1e9; v.pop_back(); }
  char* end = nullptr;
  errno = 0;
  double d = std::strtod(v.c_str(), &end);
  if (errno || end == v.c_str() || *end != 0 || !std::isfinite(d) || std::fabs(d * mult) > 9e18)
    throw std::runtime_error(name_ + ": " + key + " = '" + it->second + "' is not an integer");
  double x = d * mult;
  if (x != std::floor(x))
    throw std::runtime_error(name_ + ": " + key + " = '" + it->second + "' is not an integer");
  return static_cast<int64_t>(x);
}

double Recipe::number(const std::string& key, double def) const {
  auto it = values_.find(key);
  if (it == values_.end() || it->second.empty()) return def;
  char* end = nullptr;
  double d = std::strtod(it->second.c_str(), &end);
  if (end == it->second.c_str() || *end != 0 || !std::isfinite(d))
    throw std::runtime_error(name_ + ": " + key + " = '" + it->second + "' is not a number");
  return d;
}

bool Recipe::boolean(const std::string& key, bool def) const {
  auto it = values_.find(key);
  if (it == values_.end() || it->second.empty()) return def;
  const std::string& v = it->second;
  if (v == "true" || v == "yes" || v == "on" || v == "1") return true;
  if (v == "false" || v == "no" || v == "off" || v == "0") return false;
  throw std::runtime_error(name_ + ": " + key + " = '" + v + "' is not a boolean");
}

std::vector<std::string> Recipe::list(const std::string& key) const {
  std::vector<std::string> out;
  std::string cur;
  for (char c : str(key)) {
    if (c == ',' || c == ' ' || c == '\t') {
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

std::string Recipe::expand_path(const std::string& value) const {
  std::string out;
  for (size_t i = 0; i < value.size();) {
    if (value.compare(i, 2, "${") == 0) {
      size_t close = value.find('}', i);
      if (close == std::string::npos) throw std::runtime_error(name_ + ": unclosed ${ in '" + value + "'");
      std::string var = value.substr(i + 2, close - i - 2);
      if (var == "REPO") {
        out += repo_root_;
      } else {
        const char* env = std::getenv(var.c_str());
        if (env && *env) out += env;
        else if (var == "AMXQA_DATA") out += repo_root_ + "/../shared/data";
        else throw std::runtime_error(name_ + ": ${" + var + "} is not set");
      }
      i = close + 1;
    } else {
      out += value[i++];
    }
  }
  if (!out.empty() && out[0] != '/') out = repo_root_ + "/" + out;
  return out;
}

std::string Recipe::path(const std::string& key, const std::string& def) const {
  std::string v = str(key, def);
  return v.empty() ? v : expand_path(v);
}

std::vector<std::string> Recipe::paths(const std::string& key) const {
  std::vector<std::string> out;
  for (const auto& v : list(key)) out.push_back(expand_path(v));
  return out;
}

}  // namespace amxqa::train
