// default_model.cpp — see default_model.h.
#include "support/default_model.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "amxqa_paths.h"

namespace amxqa::bench {
namespace {

struct Holder {
  DefaultModel m;
  std::string error;
  alignas(64) unsigned char storage[AMXQA_MODEL_STORAGE_BYTES];
  ~Holder() {
    if (m.data) munmap(const_cast<unsigned char*>(m.data), m.size);
  }
};

bool open_model(Holder& h) {
  h.m.path = amxqa::paths::default_model();
  const int fd = open(h.m.path.c_str(), O_RDONLY);
  struct stat st;
  if (fd < 0 || fstat(fd, &st) != 0 || st.st_size <= 0) {
    if (fd >= 0) close(fd);
    h.error = "no default model at " + h.m.path;
    return false;
  }
  h.m.size = size_t(st.st_size);
  void* p = mmap(nullptr, h.m.size, PROT_READ, MAP_PRIVATE, fd, 0);
  close(fd);
  if (p == MAP_FAILED) {
    h.error = "cannot mmap " + h.m.path;
    return false;
  }
  h.m.data = static_cast<const unsigned char*>(p);
  const amxqa_status st_open = amxqa_model_open(h.m.data, h.m.size, h.storage, &h.m.model);
  if (st_open != AMXQA_OK) {
    h.error = h.m.path + ": " + amxqa_status_name(st_open) + ": " + amxqa_last_error(nullptr);
    h.m.model = nullptr;
    return false;
  }
  return true;
}

}  // namespace

const DefaultModel* default_model(std::string* error) {
  static Holder holder;
  static const bool ok = open_model(holder);
  if (!ok) {
    if (error) *error = holder.error;
    return nullptr;
  }
  return &holder.m;
}

}  // namespace amxqa::bench
