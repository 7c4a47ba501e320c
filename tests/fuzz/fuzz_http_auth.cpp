// fuzz_http_auth.cpp — `amxqa serve`'s access checks (sdk/server/
// http_access.h) with arbitrary header values: the Authorization header
// against an API key, and an Origin against a --cors-origin list. Input:
// four fields split at '\n' (Authorization, key, Origin, origin list). A key
// is accepted only as "Bearer <key>"; the comparison agrees with ==; no
// CORS header value can carry a line break into the reply.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_support.h"
#include "http_access.h"

extern "C" int LLVMFuzzerInitialize(int*, char***) { return 0; }

namespace {

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c + 32 : c);
  return s;
}

void check_header_values(const std::vector<std::pair<std::string, std::string>>& headers) {
  for (const auto& [name, value] : headers) {
    AMXQA_FUZZ_CHECK(!name.empty());
    AMXQA_FUZZ_CHECK(value.find_first_of(std::string("\r\n\0", 3)) == std::string::npos);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace amxqa::serve;
  const std::string input(reinterpret_cast<const char*>(data), size);
  std::vector<std::string> f;
  for (size_t pos = 0; f.size() < 3;) {
    const size_t nl = input.find('\n', pos);
    f.push_back(input.substr(pos, nl == std::string::npos ? std::string::npos : nl - pos));
    pos = nl == std::string::npos ? input.size() : nl + 1;
    if (f.size() == 3) f.push_back(input.substr(pos));
  }
  const std::string& authorization = f[0];
  const std::string& key = f[1];
  const std::string& origin = f[2];

  AMXQA_FUZZ_CHECK(constant_time_equal(authorization, key) == (authorization == key));
  std::string why;
  if (valid_api_key(key, &why)) {
    if (bearer_authorized(&authorization, key)) {
      AMXQA_FUZZ_CHECK(lower(authorization.substr(0, 7)) == "bearer ");
      AMXQA_FUZZ_CHECK(authorization.size() >= key.size() &&
                       authorization.compare(authorization.size() - key.size(), key.size(), key) == 0);
    }
    const std::string good = "Bearer " + key;
    AMXQA_FUZZ_CHECK(bearer_authorized(&good, key));
    const std::string longer = good + "x", shorter = good.substr(0, good.size() - 1);
    AMXQA_FUZZ_CHECK(!bearer_authorized(&longer, key));
    AMXQA_FUZZ_CHECK(!bearer_authorized(&shorter, key));
    AMXQA_FUZZ_CHECK(!bearer_authorized(nullptr, key));
  } else {
    AMXQA_FUZZ_CHECK(!why.empty());
  }
  AMXQA_FUZZ_CHECK(bearer_authorized(&authorization, ""));  // no key set: open

  std::vector<std::string> origins;
  for (size_t pos = 0; pos <= f[3].size() && !f[3].empty();) {
    const size_t comma = std::min(f[3].find(',', pos), f[3].size());
    origins.push_back(f[3].substr(pos, comma - pos));
    pos = comma + 1;
  }
  CorsPolicy cors;
  if (cors.set_origins(origins, &why)) {
    check_header_values(cors.reply_headers(&origin));
    check_header_values(cors.preflight_headers(&origin, &authorization));
    AMXQA_FUZZ_CHECK(cors.reply_headers(nullptr).empty());
    if (!origins.empty()) AMXQA_FUZZ_CHECK(!cors.reply_headers(&origins.back()).empty());
  } else {
    AMXQA_FUZZ_CHECK(!cors.enabled() && !why.empty());
  }
  return 0;
}
