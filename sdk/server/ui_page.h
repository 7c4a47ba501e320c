// ui_page.h — the page `amxqa serve` answers GET / with (--no-ui: none):
// sdk/server/ui/index.html, app.css and app.js, readable files in the tree,
// and the passage it starts with (samples/data/lighthouse.txt), embedded in
// the binary at build time (ui/embed_files.cmake writes the byte arrays; no
// build step, no dependencies).
#pragma once
#include <cstddef>
#include <vector>

#include "http_routes.h"

namespace amxqa::serve {

// One embedded file of sdk/server/ui, by its file name ("app.js").
struct EmbeddedFile {
  const char* name;
  const unsigned char* data;
  size_t size;
};
// Defined by the generated ui_files.cpp.
extern const EmbeddedFile kEmbeddedUi[];
extern const size_t kEmbeddedUiCount;

// The embedded files as the routes serve them: index.html at "/", every
// other file at "/ui/<name>", with its content type by extension.
std::vector<PageFile> embedded_page();

}  // namespace amxqa::serve
