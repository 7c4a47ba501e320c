// http_access.h — who may call `amxqa serve`: the API key (--api-key or
// $AMXQA_API_KEY; /v1/* needs "Authorization: Bearer <key>") and the
// browser origins allowed by CORS (--cors-origin). Pure functions over
// header values, fuzzed in tests/fuzz/fuzz_http_auth.cpp.
#pragma once
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace amxqa::serve {

// Equal strings, in a time that depends on the lengths but not on where
// they differ: a wrong key's matching prefix cannot be timed byte by byte.
bool constant_time_equal(std::string_view given, std::string_view secret);

// True when `authorization` (the header's value, or nullptr when absent) is
// "Bearer <key>" (scheme in any case, one or more spaces) and <key> equals
// `api_key`. An empty api_key means no key is required: always true.
bool bearer_authorized(const std::string* authorization, std::string_view api_key);

// A usable API key: 1 to 4096 visible ASCII characters, no spaces (it must
// fit a header line as sent). False with *why otherwise.
bool valid_api_key(std::string_view key, std::string* why);

class CorsPolicy {
 public:
  // Origins as a browser sends them ("https://app.example:8443"), or "*"
  // for any. None: no CORS headers at all. False with *why on a malformed
  // origin (anything that could break a header line).
  bool set_origins(const std::vector<std::string>& origins, std::string* why);
  bool enabled() const { return !origins_.empty(); }

  // Access-Control-Allow-Origin (and Vary) for a reply to a request whose
  // Origin header is `origin` (nullptr: none): empty when it is not allowed.
  std::vector<std::pair<std::string, std::string>> reply_headers(const std::string* origin) const;

  // The preflight's extra headers (methods, request headers, max age) when
  // `origin` is allowed; empty otherwise. `request_headers` is the
  // preflight's Access-Control-Request-Headers (nullptr: none).
  std::vector<std::pair<std::string, std::string>> preflight_headers(const std::string* origin,
                                                                     const std::string* request_headers) const;

 private:
  bool allowed(const std::string* origin) const;
  std::vector<std::string> origins_;
  bool any_ = false;
};

}  // namespace amxqa::serve
