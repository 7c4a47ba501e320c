#include "squad/json.h"

#include <cmath>
#include <cstdlib>
#include <cstring>

namespace amxqa::train {
namespace {

class Parser {
 public:
  Parser(const char* p, size_t n) : s_(p), n_(n) {}

  JsonValue document() {
    JsonValue v = value(0);
    skip_ws();
    if (i_ != n_) fail("trailing characters after the JSON value");
    return v;
  }

 private:
  const char* s_;
  size_t n_, i_ = 0;

  [[noreturn]] void fail(const char* why) const {
    throw JsonError(std::string("JSON: ") + why + " at byte " + std::to_string(i_));
  }
  void skip_ws() {
    while (i_ < n_ && (s_[i_] == ' ' || s_[i_] == '\t' || s_[i_] == '\n' || s_[i_] == '\r')) ++i_;
  }
  bool eat(char c) {
    skip_ws();
    if (i_ < n_ && s_[i_] == c) { ++i_; return true; }
    return false;
  }
  void expect_literal(const char* lit) {
    size_t len = std::strlen(lit);
    if (n_ - i_ < len || std::memcmp(s_ + i_, lit, len) != 0) fail("invalid literal");
    i_ += len;
  }

  JsonValue value(int depth) {
    if (depth > kJsonMaxDepth) fail("nesting too deep");
    skip_ws();
    if (i_ >= n_) fail("unexpected end of input");
    JsonValue v;
    char c = s_[i_];
    if (c == '{') {
      v.type = JsonValue::Type::object;
      ++i_;
      if (eat('}')) return v;
      do {
        skip_ws();
        if (i_ >= n_ || s_[i_] != '"') fail("expected a string key");
        std::string key = string();
        if (!eat(':')) fail("expected ':'");
        v.obj.emplace_back(std::move(key), value(depth + 1));
      } while (eat(','));
      if (!eat('}')) fail("expected ',' or '}'");
    } else if (c == '[') {
      v.type = JsonValue::Type::array;
      ++i_;
      if (eat(']')) return v;
      do {
        v.arr.push_back(value(depth + 1));
      } while (eat(','));
      if (!eat(']')) fail("expected ',' or ']'");
    } else if (c == '"') {
      v.type = JsonValue::Type::string;
      v.str = string();
    } else if (c == 't') {
      expect_literal("true");
      v.type = JsonValue::Type::boolean;
      v.b = true;
    } else if (c == 'f') {
      expect_literal("false");
      v.type = JsonValue::Type::boolean;
    } else if (c == 'n') {
      expect_literal("null");
    } else if (c == '-' || (c >= '0' && c <= '9')) {
      v.type = JsonValue::Type::number;
      v.num = number();
    } else {
      fail("unexpected character");
    }
    return v;
  }

  double number() {
    size_t b = i_;
    if (i_ < n_ && s_[i_] == '-') ++i_;
    auto digits = [&] {
      size_t d = i_;
      while (i_ < n_ && s_[i_] >= '0' && s_[i_] <= '9') ++i_;
      if (i_ == d) fail("malformed number");
    };
    digits();
    if (i_ < n_ && s_[i_] == '.') { ++i_; digits(); }
    if (i_ < n_ && (s_[i_] == 'e' || s_[i_] == 'E')) {
      ++i_;
      if (i_ < n_ && (s_[i_] == '+' || s_[i_] == '-')) ++i_;
      digits();
    }
    // strtod needs a terminated copy; numbers are short.
    std::string tmp(s_ + b, i_ - b);
    return std::strtod(tmp.c_str(), nullptr);
  }

  unsigned hex4() {
    if (n_ - i_ < 4) fail("truncated \\u escape");
    unsigned v = 0;
    for (int k = 0; k < 4; ++k) {
      char c = s_[i_++];
      v <<= 4;
      if (c >= '0' && c <= '9') v |= unsigned(c - '0');
      else if (c >= 'a' && c <= 'f') v |= unsigned(c - 'a' + 10);
      else if (c >= 'A' && c <= 'F') v |= unsigned(c - 'A' + 10);
      else fail("bad hex digit in \\u escape");
    }
    return v;
  }

  static void put_utf8(std::string& out, unsigned cp) {
    if (cp < 0x80) {
      out += char(cp);
    } else if (cp < 0x800) {
      out += char(0xC0 | (cp >> 6));
      out += char(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      out += char(0xE0 | (cp >> 12));
      out += char(0x80 | ((cp >> 6) & 0x3F));
      out += char(0x80 | (cp & 0x3F));
    } else {
      out += char(0xF0 | (cp >> 18));
      out += char(0x80 | ((cp >> 12) & 0x3F));
      out += char(0x80 | ((cp >> 6) & 0x3F));
      out += char(0x80 | (cp & 0x3F));
    }
  }

  std::string string() {
    ++i_;  // opening quote
    std::string out;
    while (true) {
      if (i_ >= n_) fail("unterminated string");
      unsigned char c = static_cast<unsigned char>(s_[i_++]);
      if (c == '"') return out;
      if (c < 0x20) fail("control character in string");
      if (c != '\\') { out += char(c); continue; }
      if (i_ >= n_) fail("unterminated escape");
      char e = s_[i_++];
      switch (e) {
        case '"': out += '"'; break;
        case '\\': out += '\\'; break;
        case '/': out += '/'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        case 'u': {
          unsigned cp = hex4();
          if (cp >= 0xD800 && cp <= 0xDBFF) {
            // A high surrogate must pair with a following \uDC00..\uDFFF.
            if (n_ - i_ >= 6 && s_[i_] == '\\' && s_[i_ + 1] == 'u') {
              size_t save = i_;
              i_ += 2;
              unsigned lo = hex4();
              if (lo >= 0xDC00 && lo <= 0xDFFF) {
                cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
              } else {
                i_ = save;
                cp = 0xFFFD;
              }
            } else {
              cp = 0xFFFD;
            }
          } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
            cp = 0xFFFD;
          }
          put_utf8(out, cp);
          break;
        }
        default: fail("unknown escape");
      }
    }
  }
};

}  // namespace

const JsonValue* JsonValue::get(const std::string& key) const {
  if (type != Type::object) return nullptr;
  for (const auto& kv : obj)
    if (kv.first == key) return &kv.second;
  return nullptr;
}

JsonValue parse_json(const char* text, size_t len) { return Parser(text, len).document(); }

}  // namespace amxqa::train
