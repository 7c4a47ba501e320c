#include "ui_page.h"

#include <string>

namespace amxqa::serve {

namespace {

bool ends_with(const std::string& s, const char* suffix) {
  const std::string x(suffix);
  return s.size() >= x.size() && s.compare(s.size() - x.size(), x.size(), x) == 0;
}

const char* content_type_of(const std::string& name) {
  if (ends_with(name, ".html")) return "text/html; charset=utf-8";
  if (ends_with(name, ".css")) return "text/css; charset=utf-8";
  if (ends_with(name, ".js")) return "text/javascript; charset=utf-8";
  if (ends_with(name, ".txt")) return "text/plain; charset=utf-8";
  return "application/octet-stream";
}

}  // namespace

std::vector<PageFile> embedded_page() {
  std::vector<PageFile> page;
  for (size_t i = 0; i < kEmbeddedUiCount; ++i) {
    const EmbeddedFile& f = kEmbeddedUi[i];
    const std::string name(f.name);
    page.push_back({name == "index.html" ? "/" : "/ui/" + name, content_type_of(name),
                    std::string(reinterpret_cast<const char*>(f.data), f.size)});
  }
  return page;
}

}  // namespace amxqa::serve
