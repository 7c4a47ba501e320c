// Interposes the allocator in the test executable (see alloc_counter.h).
//
// Every definition here lives in the main program, so the dynamic linker
// binds all callers (the test, libamxqa, libstdc++, libc itself) to it. Each
// wrapper counts the call and forwards to the next definition in lookup
// order, found with dlsym(RTLD_NEXT). dlsym may itself call malloc/calloc
// before the real functions are known; those requests are served from a small
// static bootstrap arena whose blocks are never returned.
#include "support/alloc_counter.h"

#include <dlfcn.h>
#include <malloc.h>
#include <sys/mman.h>

#include <atomic>
#include <cerrno>
#include <cstdarg>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>

// Sanitizers that own malloc and mmap: interposing those would bypass them.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define AMXQA_ALLOCATOR_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || \
    __has_feature(memory_sanitizer) || __has_feature(hwaddress_sanitizer)
#define AMXQA_ALLOCATOR_SANITIZED 1
#endif
#endif
#ifndef AMXQA_ALLOCATOR_SANITIZED
#define AMXQA_ALLOCATOR_SANITIZED 0
#endif

namespace {

using amxqa::test::AllocCounts;

enum class Kind { kMalloc, kNew, kMmap };

// Zero-initialised plain data: static TLS in the executable, so touching it
// from inside malloc never allocates.
thread_local AllocCounts t_counts;

struct GlobalCounts {
  std::atomic<std::uint64_t> allocations{0}, frees{0}, bytes{0}, mallocs{0}, news{0}, mmaps{0};
};
GlobalCounts g_counts;

void note_alloc(Kind kind, std::size_t bytes) {
  t_counts.allocations++;
  t_counts.bytes += bytes;
  g_counts.allocations.fetch_add(1, std::memory_order_relaxed);
  g_counts.bytes.fetch_add(bytes, std::memory_order_relaxed);
  switch (kind) {
    case Kind::kMalloc:
      t_counts.mallocs++;
      g_counts.mallocs.fetch_add(1, std::memory_order_relaxed);
      break;
    case Kind::kNew:
      t_counts.news++;
      g_counts.news.fetch_add(1, std::memory_order_relaxed);
      break;
    case Kind::kMmap:
      t_counts.mmaps++;
      g_counts.mmaps.fetch_add(1, std::memory_order_relaxed);
      break;
  }
}

void note_free() {
  t_counts.frees++;
  g_counts.frees.fetch_add(1, std::memory_order_relaxed);
}

}  // namespace

namespace amxqa::test {

bool alloc_counting_complete() { return !AMXQA_ALLOCATOR_SANITIZED; }

AllocCounts thread_alloc_counts() { return t_counts; }

AllocCounts process_alloc_counts() {
  AllocCounts c;
  c.allocations = g_counts.allocations.load(std::memory_order_relaxed);
  c.frees = g_counts.frees.load(std::memory_order_relaxed);
  c.bytes = g_counts.bytes.load(std::memory_order_relaxed);
  c.mallocs = g_counts.mallocs.load(std::memory_order_relaxed);
  c.news = g_counts.news.load(std::memory_order_relaxed);
  c.mmaps = g_counts.mmaps.load(std::memory_order_relaxed);
  return c;
}

AllocCounts AllocScope::counts() const {
  const AllocCounts now = thread_alloc_counts();
  AllocCounts d;
  d.allocations = now.allocations - start_.allocations;
  d.frees = now.frees - start_.frees;
  d.bytes = now.bytes - start_.bytes;
  d.mallocs = now.mallocs - start_.mallocs;
  d.news = now.news - start_.news;
  d.mmaps = now.mmaps - start_.mmaps;
  return d;
}

}  // namespace amxqa::test

#if !AMXQA_ALLOCATOR_SANITIZED
// ---- malloc family and mmap: full interposition ---------------------------
namespace {

struct RealFunctions {
  void* (*malloc)(std::size_t);
  void* (*calloc)(std::size_t, std::size_t);
  void* (*realloc)(void*, std::size_t);
  void (*free)(void*);
  void* (*aligned_alloc)(std::size_t, std::size_t);
  int (*posix_memalign)(void**, std::size_t, std::size_t);
  void* (*memalign)(std::size_t, std::size_t);
  void* (*valloc)(std::size_t);
  void* (*pvalloc)(std::size_t);
  void* (*mmap)(void*, std::size_t, int, int, int, off_t);
  void* (*mmap64)(void*, std::size_t, int, int, int, off64_t);
  int (*munmap)(void*, std::size_t);
  void* (*mremap)(void*, std::size_t, std::size_t, int, ...);
};

RealFunctions g_real;
std::atomic<bool> g_resolved{false};
thread_local bool t_resolving = false;

// Bootstrap arena for allocations made by dlsym while resolving. Each block
// has a 16-byte header holding its size so realloc can copy it out.
constexpr std::size_t kArenaBytes = 64 * 1024;
alignas(64) unsigned char g_arena[kArenaBytes];
std::atomic<std::size_t> g_arena_used{0};

bool in_arena(const void* p) {
  const auto* b = static_cast<const unsigned char*>(p);
  return b >= g_arena && b < g_arena + kArenaBytes;
}

void* arena_alloc(std::size_t n, std::size_t align) {
  if (align < 16) align = 16;
  for (;;) {
    std::size_t used = g_arena_used.load(std::memory_order_relaxed);
    std::size_t start = (used + 16 + align - 1) / align * align;  // room for the header
    if (n > kArenaBytes || start + n > kArenaBytes) return nullptr;
    if (g_arena_used.compare_exchange_weak(used, start + n, std::memory_order_relaxed)) {
      std::memcpy(g_arena + start - sizeof(std::size_t), &n, sizeof n);
      return g_arena + start;
    }
  }
}

std::size_t arena_block_size(const void* p) {
  std::size_t n;
  std::memcpy(&n, static_cast<const unsigned char*>(p) - sizeof n, sizeof n);
  return n;
}

template <typename F>
void resolve_one(F& slot, const char* name) {
  slot = reinterpret_cast<F>(dlsym(RTLD_NEXT, name));
}

// Returns false while this thread is inside dlsym (callers use the arena).
bool ensure_resolved() {
  if (g_resolved.load(std::memory_order_acquire)) return true;
  if (t_resolving) return false;
  t_resolving = true;
  resolve_one(g_real.malloc, "malloc");
  resolve_one(g_real.calloc, "calloc");
  resolve_one(g_real.realloc, "realloc");
  resolve_one(g_real.free, "free");
  resolve_one(g_real.aligned_alloc, "aligned_alloc");
  resolve_one(g_real.posix_memalign, "posix_memalign");
  resolve_one(g_real.memalign, "memalign");
  resolve_one(g_real.valloc, "valloc");
  resolve_one(g_real.pvalloc, "pvalloc");
  resolve_one(g_real.mmap, "mmap");
  resolve_one(g_real.mmap64, "mmap64");
  resolve_one(g_real.munmap, "munmap");
  resolve_one(g_real.mremap, "mremap");
  t_resolving = false;
  if (!g_real.malloc || !g_real.calloc || !g_real.realloc || !g_real.free ||
      !g_real.posix_memalign || !g_real.mmap || !g_real.munmap) {
    static const char kMsg[] = "alloc_counter: dlsym(RTLD_NEXT) could not find the allocator\n";
    std::fwrite(kMsg, 1, sizeof kMsg - 1, stderr);
    std::abort();
  }
  g_resolved.store(true, std::memory_order_release);
  return true;
}

void* raw_malloc(std::size_t n) {
  if (!ensure_resolved()) return arena_alloc(n, 16);
  return g_real.malloc(n);
}

void* raw_aligned(std::size_t align, std::size_t n) {
  if (align < sizeof(void*)) align = sizeof(void*);
  if (!ensure_resolved()) return arena_alloc(n, align);
  void* p = nullptr;
  return g_real.posix_memalign(&p, align, n) == 0 ? p : nullptr;
}

void raw_free(void* p) {
  if (!p || in_arena(p)) return;  // arena blocks are never reused
  ensure_resolved();
  g_real.free(p);
}

void* counted(void* p, std::size_t n) {
  if (p) note_alloc(Kind::kMalloc, n);
  return p;
}

}  // namespace

extern "C" {

void* malloc(std::size_t n) noexcept { return counted(raw_malloc(n), n); }

void* calloc(std::size_t count, std::size_t size) noexcept {
  if (size != 0 && count > SIZE_MAX / size) {
    errno = ENOMEM;
    return nullptr;
  }
  if (!ensure_resolved()) return arena_alloc(count * size, 16);  // static arena is zeroed
  return counted(g_real.calloc(count, size), count * size);
}

void* realloc(void* p, std::size_t n) noexcept {
  if (p && in_arena(p)) {
    void* q = raw_malloc(n);
    if (q) {
      const std::size_t old = arena_block_size(p);
      std::memcpy(q, p, old < n ? old : n);
      note_alloc(Kind::kMalloc, n);
    }
    return q;
  }
  if (!ensure_resolved()) return arena_alloc(n, 16);  // p is null here
  void* q = g_real.realloc(p, n);
  if (p && (q || n == 0)) note_free();  // the old block is gone (moved, resized or freed)
  return counted(q, n);
}

void free(void* p) noexcept {
  if (!p || in_arena(p)) return;
  note_free();
  raw_free(p);
}

void* aligned_alloc(std::size_t align, std::size_t n) noexcept {
  if (!ensure_resolved()) return arena_alloc(n, align);
  return counted(g_real.aligned_alloc(align, n), n);
}

int posix_memalign(void** out, std::size_t align, std::size_t n) noexcept {
  if (!ensure_resolved()) {
    *out = arena_alloc(n, align);
    return *out ? 0 : ENOMEM;
  }
  const int rc = g_real.posix_memalign(out, align, n);
  if (rc == 0) counted(*out, n);
  return rc;
}

void* memalign(std::size_t align, std::size_t n) noexcept {
  if (!ensure_resolved()) return arena_alloc(n, align);
  return counted(g_real.memalign(align, n), n);
}

void* valloc(std::size_t n) noexcept {
  if (!ensure_resolved()) return arena_alloc(n, 4096);
  return counted(g_real.valloc(n), n);
}

void* pvalloc(std::size_t n) noexcept {
  if (!ensure_resolved()) return arena_alloc(n, 4096);
  return counted(g_real.pvalloc(n), n);
}

void* mmap(void* addr, std::size_t len, int prot, int flags, int fd, off_t off) noexcept {
  ensure_resolved();
  void* p = g_real.mmap(addr, len, prot, flags, fd, off);
  if (p != MAP_FAILED) note_alloc(Kind::kMmap, len);
  return p;
}

void* mmap64(void* addr, std::size_t len, int prot, int flags, int fd, off64_t off) noexcept {
  ensure_resolved();
  void* p = g_real.mmap64 ? g_real.mmap64(addr, len, prot, flags, fd, off)
                          : g_real.mmap(addr, len, prot, flags, fd, static_cast<off_t>(off));
  if (p != MAP_FAILED) note_alloc(Kind::kMmap, len);
  return p;
}

int munmap(void* addr, std::size_t len) noexcept {
  ensure_resolved();
  const int rc = g_real.munmap(addr, len);
  if (rc == 0) note_free();
  return rc;
}

void* mremap(void* old, std::size_t old_len, std::size_t new_len, int flags, ...) noexcept {
  ensure_resolved();
  void* target = nullptr;
  if (flags & MREMAP_FIXED) {
    va_list ap;
    va_start(ap, flags);
    target = va_arg(ap, void*);
    va_end(ap);
  }
  void* p = g_real.mremap(old, old_len, new_len, flags, target);
  if (p != MAP_FAILED) note_alloc(Kind::kMmap, new_len);
  return p;
}

}  // extern "C"

#else
// ---- Sanitizer build: the sanitizer's malloc/free back operator new --------
namespace {
void* raw_malloc(std::size_t n) { return std::malloc(n); }
void* raw_aligned(std::size_t align, std::size_t n) {
  if (align < sizeof(void*)) align = sizeof(void*);
  void* p = nullptr;
  return posix_memalign(&p, align, n) == 0 ? p : nullptr;
}
void raw_free(void* p) { std::free(p); }
}  // namespace
#endif

// ---- operator new/delete: every variant, counted in all builds -------------
namespace {

void* new_impl(std::size_t n, std::size_t align, bool nothrow) {
  if (n == 0) n = 1;  // distinct non-null pointers for zero-size requests
  for (;;) {
    void* p = align ? raw_aligned(align, n) : raw_malloc(n);
    if (p) {
      note_alloc(Kind::kNew, n);
      return p;
    }
    std::new_handler handler = std::get_new_handler();
    if (!handler) {
      if (nothrow) return nullptr;
      throw std::bad_alloc();
    }
    handler();
  }
}

void* new_nothrow(std::size_t n, std::size_t align) noexcept {
  try {
    return new_impl(n, align, true);
  } catch (...) {  // a new_handler may throw; nothrow new must not
    return nullptr;
  }
}

void delete_impl(void* p) noexcept {
  if (!p) return;
  note_free();
  raw_free(p);
}

std::size_t align_of(std::align_val_t a) { return static_cast<std::size_t>(a); }

}  // namespace

void* operator new(std::size_t n) { return new_impl(n, 0, false); }
void* operator new[](std::size_t n) { return new_impl(n, 0, false); }
void* operator new(std::size_t n, const std::nothrow_t&) noexcept { return new_nothrow(n, 0); }
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept { return new_nothrow(n, 0); }
void* operator new(std::size_t n, std::align_val_t a) { return new_impl(n, align_of(a), false); }
void* operator new[](std::size_t n, std::align_val_t a) { return new_impl(n, align_of(a), false); }
void* operator new(std::size_t n, std::align_val_t a, const std::nothrow_t&) noexcept {
  return new_nothrow(n, align_of(a));
}
void* operator new[](std::size_t n, std::align_val_t a, const std::nothrow_t&) noexcept {
  return new_nothrow(n, align_of(a));
}

void operator delete(void* p) noexcept { delete_impl(p); }
void operator delete[](void* p) noexcept { delete_impl(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { delete_impl(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { delete_impl(p); }
void operator delete(void* p, std::size_t) noexcept { delete_impl(p); }
void operator delete[](void* p, std::size_t) noexcept { delete_impl(p); }
void operator delete(void* p, std::align_val_t) noexcept { delete_impl(p); }
void operator delete[](void* p, std::align_val_t) noexcept { delete_impl(p); }
void operator delete(void* p, std::align_val_t, const std::nothrow_t&) noexcept { delete_impl(p); }
void operator delete[](void* p, std::align_val_t, const std::nothrow_t&) noexcept {
  delete_impl(p);
}
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { delete_impl(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { delete_impl(p); }
