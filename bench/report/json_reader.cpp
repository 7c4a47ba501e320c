// json_reader.cpp — recursive-descent JSON parser (RFC 8259) and a gzip-aware
// file reader. \uXXXX escapes become UTF-8 (surrogate pairs joined, a lone
// surrogate becomes U+FFFD).
#include "report/json_reader.h"

#include <zlib.h>

#include <cstdlib>
#include <stdexcept>

namespace amxqa::bench {
namespace {

constexpr int kMaxDepth = 64;

class Parser {
 public:
  explicit Parser(const std::string& t) : t_(t) {}

  Json document() {
    Json v = value(0);
    skip_ws();
    if (i_ != t_.size()) fail("trailing characters");
    return v;
  }

 private:
  [[noreturn]] void fail(const char* what) const {
    throw std::runtime_error(std::string("JSON: ") + what + " at byte " + std::to_string(i_));
  }
  void skip_ws() {
    while (i_ < t_.size() && (t_[i_] == ' ' || t_[i_] == '\n' || t_[i_] == '\r' || t_[i_] == '\t'))
      ++i_;
  }
  bool eat(char c) {
    skip_ws();
    if (i_ < t_.size() && t_[i_] == c) {
      ++i_;
      return true;
    }
    return false;
  }
  void expect(char c) {
    if (!eat(c)) fail("unexpected character");
  }
  bool literal(const char* word) {
    size_t n = 0;
    while (word[n]) ++n;
    if (t_.compare(i_, n, word) != 0) return false;
    i_ += n;
    return true;
  }

  Json value(int depth) {
    if (depth > kMaxDepth) fail("nesting too deep");
    skip_ws();
    if (i_ >= t_.size()) fail("unexpected end");
    Json v;
    const char c = t_[i_];
    if (c == '{') {
      ++i_;
      v.kind = Json::Kind::object;
      if (eat('}')) return v;
      do {
        skip_ws();
        std::string k = string_body();
        expect(':');
        v.fields.emplace_back(std::move(k), value(depth + 1));
      } while (eat(','));
      expect('}');
    } else if (c == '[') {
      ++i_;
      v.kind = Json::Kind::array;
      if (eat(']')) return v;
      do v.items.push_back(value(depth + 1));
      while (eat(','));
      expect(']');
    } else if (c == '"') {
      v.kind = Json::Kind::string;
      v.str = string_body();
    } else if (literal("true")) {
      v.kind = Json::Kind::boolean;
      v.b = true;
    } else if (literal("false")) {
      v.kind = Json::Kind::boolean;
    } else if (literal("null")) {
    } else {
      v.kind = Json::Kind::number;
      v.num = number();
    }
    return v;
  }

  double number() {
    const size_t start = i_;
    if (i_ < t_.size() && t_[i_] == '-') ++i_;
    auto digits = [&] {
      const size_t s = i_;
      while (i_ < t_.size() && t_[i_] >= '0' && t_[i_] <= '9') ++i_;
      if (i_ == s) fail("bad number");
    };
    digits();
    if (i_ < t_.size() && t_[i_] == '.') {
      ++i_;
      digits();
    }
    if (i_ < t_.size() && (t_[i_] == 'e' || t_[i_] == 'E')) {
      ++i_;
      if (i_ < t_.size() && (t_[i_] == '+' || t_[i_] == '-')) ++i_;
      digits();
    }
    return std::strtod(t_.substr(start, i_ - start).c_str(), nullptr);
  }

  unsigned hex4() {
    if (i_ + 4 > t_.size()) fail("short \\u escape");
    unsigned u = 0;
    for (int k = 0; k < 4; ++k) {
      const char h = t_[i_++];
      u <<= 4;
      if (h >= '0' && h <= '9')
        u |= unsigned(h - '0');
      else if (h >= 'a' && h <= 'f')
        u |= unsigned(h - 'a' + 10);
      else if (h >= 'A' && h <= 'F')
        u |= unsigned(h - 'A' + 10);
      else
        fail("bad \\u escape");
    }
    return u;
  }

  static void put_utf8(std::string& o, unsigned cp) {
    if (cp < 0x80) {
      o += char(cp);
    } else if (cp < 0x800) {
      o += char(0xC0 | (cp >> 6));
      o += char(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      o += char(0xE0 | (cp >> 12));
      o += char(0x80 | ((cp >> 6) & 0x3F));
      o += char(0x80 | (cp & 0x3F));
    } else {
      o += char(0xF0 | (cp >> 18));
      o += char(0x80 | ((cp >> 12) & 0x3F));
      o += char(0x80 | ((cp >> 6) & 0x3F));
      o += char(0x80 | (cp & 0x3F));
    }
  }

  std::string string_body() {
    if (i_ >= t_.size() || t_[i_] != '"') fail("expected a string");
    ++i_;
    std::string o;
    for (;;) {
      if (i_ >= t_.size()) fail("unterminated string");
      const char c = t_[i_++];
      if (c == '"') return o;
      if (static_cast<unsigned char>(c) < 0x20) fail("control character in string");
      if (c != '\\') {
        o += c;
        continue;
      }
      if (i_ >= t_.size()) fail("unterminated escape");
      const char e = t_[i_++];
      switch (e) {
        case '"':
          o += '"';
          break;
        case '\\':
          o += '\\';
          break;
        case '/':
          o += '/';
          break;
        case 'b':
          o += '\b';
          break;
        case 'f':
          o += '\f';
          break;
        case 'n':
          o += '\n';
          break;
        case 'r':
          o += '\r';
          break;
        case 't':
          o += '\t';
          break;
        case 'u': {
          unsigned cp = hex4();
          if (cp >= 0xD800 && cp < 0xDC00) {
            // A high surrogate joins a following low one; alone it is invalid.
            if (i_ + 6 <= t_.size() && t_[i_] == '\\' && t_[i_ + 1] == 'u') {
              const size_t save = i_;
              i_ += 2;
              const unsigned lo = hex4();
              if (lo >= 0xDC00 && lo < 0xE000)
                cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
              else {
                i_ = save;
                cp = 0xFFFD;
              }
            } else {
              cp = 0xFFFD;
            }
          } else if (cp >= 0xDC00 && cp < 0xE000) {
            cp = 0xFFFD;
          }
          put_utf8(o, cp);
          break;
        }
        default:
          fail("bad escape");
      }
    }
  }

  const std::string& t_;
  size_t i_ = 0;
};

}  // namespace

const Json* Json::get(const std::string& k) const {
  if (kind != Kind::object) return nullptr;
  for (const auto& f : fields)
    if (f.first == k) return &f.second;
  return nullptr;
}

Json parse_json(const std::string& text) { return Parser(text).document(); }

std::string read_file_maybe_gz(const std::string& path) {
  gzFile f = gzopen(path.c_str(), "rb");
  if (!f) throw std::runtime_error("cannot open " + path);
  std::string out;
  char buf[1 << 16];
  int n;
  while ((n = gzread(f, buf, sizeof buf)) > 0) out.append(buf, size_t(n));
  const bool bad = n < 0;
  gzclose(f);
  if (bad) throw std::runtime_error("cannot read " + path + " (corrupt gzip?)");
  return out;
}

}  // namespace amxqa::bench
