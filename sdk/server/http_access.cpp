#include "http_access.h"

#include <algorithm>

namespace amxqa::serve {

namespace {

// Visible ASCII without space: what a header value may carry unquoted.
bool visible_ascii(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](char c) { return c > 0x20 && c < 0x7f; });
}

// Access-Control-Request-Headers is echoed back when it is a plain list of
// header names; anything else gets the two headers the API uses.
bool header_name_list(std::string_view s) {
  return s.size() <= 1024 && std::all_of(s.begin(), s.end(), [](char c) {
           return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
                  c == '_' || c == ',' || c == ' ';
         });
}

}  // namespace

bool constant_time_equal(std::string_view given, std::string_view secret) {
  // Every byte of the secret is compared, whatever `given` holds; volatile
  // keeps the compiler from turning the loop into an early-exit compare.
  volatile unsigned char diff = given.size() == secret.size() ? 0 : 1;
  for (size_t i = 0; i < secret.size(); ++i) {
    const unsigned char g = i < given.size() ? static_cast<unsigned char>(given[i]) : 0;
    diff = diff | (g ^ static_cast<unsigned char>(secret[i]));
  }
  return diff == 0;
}

bool bearer_authorized(const std::string* authorization, std::string_view api_key) {
  if (api_key.empty()) return true;
  if (authorization == nullptr) return false;
  std::string_view v = *authorization;
  constexpr std::string_view kScheme = "bearer";
  if (v.size() <= kScheme.size() || v[kScheme.size()] != ' ') return false;
  for (size_t i = 0; i < kScheme.size(); ++i)
    if ((v[i] | 0x20) != kScheme[i]) return false;
  v.remove_prefix(kScheme.size());
  while (!v.empty() && v.front() == ' ') v.remove_prefix(1);
  return constant_time_equal(v, api_key);
}

bool valid_api_key(std::string_view key, std::string* why) {
  if (key.empty() || key.size() > 4096) {
    *why = "an API key has 1 to 4096 characters";
    return false;
  }
  if (!visible_ascii(key)) {
    *why = "an API key has visible ASCII characters only (no spaces)";
    return false;
  }
  return true;
}

bool CorsPolicy::set_origins(const std::vector<std::string>& origins, std::string* why) {
  origins_.clear();
  any_ = false;
  for (const std::string& o : origins) {
    if (o.empty() || o.size() > 1024 || !visible_ascii(o) || o.find(',') != std::string::npos) {
      *why = "malformed CORS origin \"" + o + "\" (expected e.g. https://app.example or *)";
      origins_.clear();
      return false;
    }
    any_ = any_ || o == "*";
    origins_.push_back(o);
  }
  return true;
}

bool CorsPolicy::allowed(const std::string* origin) const {
  if (origin == nullptr || origins_.empty()) return false;
  return any_ || std::find(origins_.begin(), origins_.end(), *origin) != origins_.end();
}

std::vector<std::pair<std::string, std::string>> CorsPolicy::reply_headers(const std::string* origin) const {
  if (!allowed(origin)) return {};
  // Any origin: "*". A listed one is echoed, and caches must key on it.
  if (any_) return {{"Access-Control-Allow-Origin", "*"}};
  return {{"Access-Control-Allow-Origin", *origin}, {"Vary", "Origin"}};
}

std::vector<std::pair<std::string, std::string>> CorsPolicy::preflight_headers(
    const std::string* origin, const std::string* request_headers) const {
  if (!allowed(origin)) return {};
  const bool echo = request_headers != nullptr && !request_headers->empty() && header_name_list(*request_headers);
  return {{"Access-Control-Allow-Methods", "GET, POST, OPTIONS"},
          {"Access-Control-Allow-Headers", echo ? *request_headers : std::string("Authorization, Content-Type")},
          {"Access-Control-Max-Age", "600"}};
}

}  // namespace amxqa::serve
