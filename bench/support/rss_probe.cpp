// rss_probe.cpp — see rss_probe.h. QAFILE format: repeated
// [u32 question bytes][u32 passage bytes][question][passage], little endian.
#include "support/rss_probe.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "amxqa.h"

extern char** environ;

namespace amxqa::bench {

// VmHWM of /proc/self/status: this address space's peak resident set.
int64_t vm_hwm_bytes() {
  FILE* f = std::fopen("/proc/self/status", "r");
  if (!f) return -1;
  char line[256];
  long long kib = -1;
  while (std::fgets(line, sizeof line, f))
    if (std::sscanf(line, "VmHWM: %lld kB", &kib) == 1) break;
  std::fclose(f);
  return kib < 0 ? -1 : int64_t(kib) * 1024;
}

int64_t self_peak_rss_bytes() {
  rusage ru;
  std::memset(&ru, 0, sizeof ru);
  getrusage(RUSAGE_SELF, &ru);
  return int64_t(ru.ru_maxrss) * 1024;  // Linux reports KiB
}

int64_t measure_answer_peak_rss(const std::string& model_path, const std::vector<QaPair>& pairs,
                                std::string* error) {
  const char* tmp = std::getenv("TMPDIR");
  std::string qa = std::string(tmp && *tmp ? tmp : "/tmp") + "/amxqa-bench-qa-XXXXXX";
  std::vector<char> name(qa.begin(), qa.end());
  name.push_back('\0');
  const int fd = mkstemp(name.data());
  if (fd < 0) {
    *error = "cannot create the question file";
    return -1;
  }
  FILE* f = fdopen(fd, "wb");
  for (const QaPair& p : pairs) {
    const uint32_t lens[2] = {uint32_t(p.question.size()), uint32_t(p.passage.size())};
    std::fwrite(lens, sizeof lens, 1, f);
    std::fwrite(p.question.data(), 1, p.question.size(), f);
    std::fwrite(p.passage.data(), 1, p.passage.size(), f);
  }
  std::fclose(f);

  // The child reports its VmHWM on stdout. (Its ru_maxrss would include this
  // process's pages: posix_spawn shares our address space until exec.)
  int out[2];
  if (pipe(out) != 0) {
    unlink(name.data());
    *error = "pipe failed";
    return -1;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, out[1], STDOUT_FILENO);
  posix_spawn_file_actions_addclose(&actions, out[0]);
  std::string arg0 = "amxqa-bench", arg1 = "rss-probe";
  char* argv[] = {arg0.data(), arg1.data(), const_cast<char*>(model_path.c_str()), name.data(),
                  nullptr};
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, "/proc/self/exe", &actions, nullptr, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  close(out[1]);
  std::string reply;
  char buf[256];
  ssize_t got;
  while ((got = read(out[0], buf, sizeof buf)) > 0) reply.append(buf, size_t(got));
  close(out[0]);
  int64_t result = -1;
  if (rc != 0) {
    *error = std::string("posix_spawn: ") + std::strerror(rc);
  } else {
    int status = 0;
    long long bytes = -1;
    const bool ok = waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
                    WEXITSTATUS(status) == 0 &&
                    std::sscanf(reply.c_str(), "peak_rss_bytes %lld", &bytes) == 1;
    if (ok)
      result = bytes;
    else
      *error = "rss-probe child failed (status " + std::to_string(status) + ")";
  }
  unlink(name.data());
  return result;
}

namespace {

// Maps a whole file read-only; nullptr on failure.
const unsigned char* map_file(const char* path, size_t* size) {
  const int fd = open(path, O_RDONLY);
  struct stat st;
  if (fd < 0 || fstat(fd, &st) != 0 || st.st_size <= 0) {
    if (fd >= 0) close(fd);
    return nullptr;
  }
  void* p = mmap(nullptr, size_t(st.st_size), PROT_READ, MAP_PRIVATE, fd, 0);
  close(fd);
  if (p == MAP_FAILED) return nullptr;
  *size = size_t(st.st_size);
  return static_cast<const unsigned char*>(p);
}

}  // namespace

int rss_probe_main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: amxqa-bench rss-probe MODEL QAFILE\n");
    return 2;
  }
  size_t model_size = 0, qa_size = 0;
  const unsigned char* model_bytes = map_file(argv[1], &model_size);
  const unsigned char* qa = map_file(argv[2], &qa_size);
  if (!model_bytes || !qa) {
    std::fprintf(stderr, "rss-probe: cannot map %s\n", model_bytes ? argv[2] : argv[1]);
    return 1;
  }
  alignas(64) static unsigned char storage[AMXQA_MODEL_STORAGE_BYTES];
  amxqa_model* model = nullptr;
  if (amxqa_model_open(model_bytes, model_size, storage, &model) != AMXQA_OK) {
    std::fprintf(stderr, "rss-probe: %s\n", amxqa_last_error(nullptr));
    return 1;
  }
  amxqa_session_options opt;
  amxqa_session_options_default(&opt);
  const size_t need = amxqa_session_size(model, &opt);
  void* mem = need ? std::aligned_alloc(64, (need + 63) / 64 * 64) : nullptr;
  amxqa_session* s = nullptr;
  if (!mem || amxqa_session_init(model, &opt, mem, need, &s) != AMXQA_OK) {
    std::fprintf(stderr, "rss-probe: session: %s\n", amxqa_last_error(nullptr));
    return 1;
  }
  char out[1024];
  for (size_t off = 0; off + 8 <= qa_size;) {
    uint32_t lens[2];
    std::memcpy(lens, qa + off, sizeof lens);
    off += 8;
    if (uint64_t(lens[0]) + lens[1] > qa_size - off) break;
    const char* q = reinterpret_cast<const char*>(qa + off);
    const char* p = q + lens[0];
    off += uint64_t(lens[0]) + lens[1];
    amxqa_answer(s, q, lens[0], p, lens[1], out, sizeof out, nullptr);
  }
  amxqa_session_finish(s);
  std::free(mem);
  const int64_t hwm = vm_hwm_bytes();
  if (hwm <= 0) return 1;
  std::printf("peak_rss_bytes %lld\n", static_cast<long long>(hwm));
  return 0;
}

}  // namespace amxqa::bench
