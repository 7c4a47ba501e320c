#include "recipe/recipe.h"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
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

Recipe Recipe::parse(const std::string& text, const std::string& name) {
  Recipe r;
  r.name_ = name;
  r.text_ = text;
  std::istringstream in(text);
  std::string line, section;
  int lineno = 0;
  while (std::getline(in, line)) {
    ++lineno;
    // A '#' starts a comment anywhere (values never need a literal '#').
    size_t hash = line.find('#');
    if (hash != std::string::npos) line.resize(hash);
    line = trim(line);
    if (line.empty()) continue;
    auto fail = [&](const std::string& why) {
      throw std::runtime_error(name + ":" + std::to_string(lineno) + ": " + why);
    };
    if (line[0] == '[') {
      if (line.back() != ']') fail("section header without ']'");
      section = trim(line.substr(1, line.size() - 2));
      if (!valid_key(section) || section.find('.') != std::string::npos)
        fail("bad section name '" + section + "'");
      continue;
    }
    size_t eq = line.find('=');
    if (eq == std::string::npos) fail("expected 'key = value'");
    std::string key = trim(line.substr(0, eq)), value = trim(line.substr(eq + 1));
    if (!valid_key(key)) fail("bad key '" + key + "'");
    std::string full = section.empty() ? key : section + "." + key;
    if (r.values_.count(full)) fail("duplicate key '" + full + "'");
    r.values_[full] = value;
  }
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

std::string Recipe::dump() const {
  if (!overridden_) return text_;
  std::string top, rest, current;
  for (const auto& kv : values_) {
    size_t dot = kv.first.find('.');
    if (dot == std::string::npos) {
      top += kv.first + " = " + kv.second + "\n";
      continue;
    }
    std::string sec = kv.first.substr(0, dot);
    if (sec != current) {
      rest += "\n[" + sec + "]\n";
      current = sec;
    }
    rest += kv.first.substr(dot + 1) + " = " + kv.second + "\n";
  }
  return "# " + name_ + " (merged: base recipe and overrides applied)\n" + top + rest;
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
