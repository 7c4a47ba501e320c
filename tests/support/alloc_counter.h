// Allocation counter for tests: proves that code under test allocates nothing.
//
// tests/support/alloc_counter.cpp is linked into every test executable. It
// defines malloc, calloc, realloc, free, aligned_alloc, posix_memalign,
// memalign, valloc, pvalloc, every operator new/delete, and mmap/mmap64/
// munmap/mremap in the test binary itself, counts each call, and forwards to
// the real functions found with dlsym(RTLD_NEXT). Counts are kept per thread
// (what AllocScope reports) and per process.
//
//   amxqa::test::AllocScope scope;
//   amxqa_answer(...);
//   AMXQA_CHECK_NO_ALLOCATIONS(scope);   // or CHECK(scope.allocations() == 0)
//
// Read counts() once, before any CHECK: doctest may allocate while reporting
// an assertion (always with --success), which a later read would include.
//
// Sanitizers: ASan, TSan, MSan and HWASan replace malloc and mmap themselves,
// so under them only operator new/delete are counted (they forward to the
// sanitizer's malloc/free, which keeps its checks for everything else).
// alloc_counting_complete() says which mode is active; AMXQA_CHECK_NO_ALLOCATIONS
// checks what is counted and prints a doctest MESSAGE for what is not.
// UBSan alone does not replace the allocator: counting stays complete.
// Checked with GCC 12 and Clang 14, plain, ASan+UBSan and TSan.
#pragma once

#include <cstdint>

namespace amxqa::test {

struct AllocCounts {
  std::uint64_t allocations = 0;  // every successful allocating call, all kinds
  std::uint64_t frees = 0;        // free/delete/munmap of a non-null pointer
  std::uint64_t bytes = 0;        // bytes requested by those allocations
  std::uint64_t mallocs = 0;      // malloc family (malloc, calloc, realloc, aligned, ...)
  std::uint64_t news = 0;         // operator new, all variants
  std::uint64_t mmaps = 0;        // mmap, mmap64, mremap
};

// True when malloc-family and mmap calls are counted; false under sanitizers
// that own the allocator, where only operator new/delete are counted.
bool alloc_counting_complete();

// Totals since process start: for the calling thread, and for all threads.
AllocCounts thread_alloc_counts();
AllocCounts process_alloc_counts();

// Counts the calling thread's allocations between construction and each query.
class AllocScope {
 public:
  AllocScope() : start_(thread_alloc_counts()) {}
  AllocCounts counts() const;
  std::uint64_t allocations() const { return counts().allocations; }
  std::uint64_t frees() const { return counts().frees; }
  std::uint64_t bytes() const { return counts().bytes; }
  void reset() { start_ = thread_alloc_counts(); }

 private:
  AllocCounts start_;
};

}  // namespace amxqa::test

// Asserts that `scope` saw no allocation. Under an allocator-replacing
// sanitizer it checks operator new only and says so with a doctest MESSAGE.
// Needs <doctest/doctest.h> included before use.
#define AMXQA_CHECK_NO_ALLOCATIONS(scope)                                              \
  do {                                                                                 \
    const ::amxqa::test::AllocCounts amxqa_counts_ = (scope).counts();                 \
    if (::amxqa::test::alloc_counting_complete()) {                                    \
      CHECK(amxqa_counts_.allocations == 0);                                           \
    } else {                                                                           \
      MESSAGE("sanitizer build: malloc/mmap not counted, checking operator new only"); \
      CHECK(amxqa_counts_.news == 0);                                                  \
    }                                                                                  \
  } while (0)
