// The allocation counter itself: each kind of allocation is seen, and a scope
// without allocation reads zero. The zero-allocation tests of the runtime are
// only as good as this.
#include <doctest/doctest.h>
#include <sys/mman.h>

#include <cstdlib>
#include <cstdint>
#include <memory>
#include <thread>
#include <vector>

#include "support/alloc_counter.h"

namespace {

// Keeps the compiler from proving an allocation unused and deleting it
// (GCC removes malloc/free and new/delete pairs whose result is never read).
void escape(void* p) { asm volatile("" : : "g"(p) : "memory"); }

}  // namespace

TEST_SUITE("unit") {
  TEST_CASE("alloc counter: a scope without allocation counts zero") {
    amxqa::test::AllocScope scope;
    int sum = 0;
    for (int i = 0; i < 100; ++i) sum += i;
    escape(&sum);
    // Read once: reporting a CHECK (e.g. with --success) may itself allocate.
    const auto counts = scope.counts();
    CHECK(counts.allocations == 0);
    CHECK(counts.frees == 0);
    CHECK(counts.bytes == 0);

    amxqa::test::AllocScope quiet;
    escape(&sum);
    AMXQA_CHECK_NO_ALLOCATIONS(quiet);
  }

  TEST_CASE("alloc counter: malloc and free are counted") {
    if (!amxqa::test::alloc_counting_complete()) {
      MESSAGE("sanitizer build: malloc is the sanitizer's and is not counted");
      return;
    }
    amxqa::test::AllocScope scope;
    void* p = std::malloc(100);
    escape(p);
    const auto after_malloc = scope.counts();
    std::free(p);
    const auto after_free = scope.counts();
    CHECK(after_malloc.allocations == 1);
    CHECK(after_malloc.mallocs == 1);
    CHECK(after_malloc.bytes == 100);
    CHECK(after_free.frees == 1);
  }

  TEST_CASE("alloc counter: calloc, realloc and posix_memalign are counted") {
    if (!amxqa::test::alloc_counting_complete()) {
      MESSAGE("sanitizer build: malloc family not counted");
      return;
    }
    amxqa::test::AllocScope scope;
    void* a = std::calloc(4, 8);
    escape(a);
    a = std::realloc(a, 4096);
    escape(a);
    void* b = nullptr;
    REQUIRE(posix_memalign(&b, 64, 256) == 0);
    escape(b);
    const auto allocated = scope.counts();
    std::free(a);
    std::free(b);
    const auto freed = scope.counts();
    CHECK(allocated.mallocs == 3);
    CHECK(freed.frees == 3);  // realloc released the calloc block
  }

  TEST_CASE("alloc counter: operator new and delete are counted") {
    amxqa::test::AllocScope scope;
    auto* x = new int(7);
    escape(x);
    const auto after_new = scope.counts();
    delete x;
    const auto after_delete = scope.counts();
    CHECK(after_new.news == 1);
    CHECK(after_new.allocations == 1);
    CHECK(after_delete.frees == 1);

    struct alignas(128) Wide {
      float v[32];
    };
    scope.reset();
    auto* w = new Wide[3];
    escape(w);
    const auto after_aligned_new = scope.counts();
    const bool aligned = reinterpret_cast<std::uintptr_t>(w) % 128 == 0;
    delete[] w;
    const auto after_aligned_delete = scope.counts();
    CHECK(aligned);
    CHECK(after_aligned_new.news == 1);
    CHECK(after_aligned_delete.frees == 1);
  }

  TEST_CASE("alloc counter: std::vector growth is counted") {
    amxqa::test::AllocScope scope;
    std::vector<int> v;
    for (int i = 0; i < 1000; ++i) v.push_back(i);
    escape(v.data());
    const auto grown = scope.counts();
    CHECK(grown.allocations >= 2);  // grows geometrically: several reallocations
    CHECK(grown.news == grown.allocations);
  }

  TEST_CASE("alloc counter: mmap and munmap are counted") {
    if (!amxqa::test::alloc_counting_complete()) {
      MESSAGE("sanitizer build: mmap is the sanitizer's and is not counted");
      return;
    }
    amxqa::test::AllocScope scope;
    void* p = mmap(nullptr, 1 << 16, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    const auto mapped = scope.counts();
    const int unmapped = p == MAP_FAILED ? -1 : munmap(p, 1 << 16);
    const auto after_unmap = scope.counts();
    REQUIRE(p != MAP_FAILED);
    CHECK(unmapped == 0);
    CHECK(mapped.mmaps == 1);
    CHECK(mapped.bytes == (1u << 16));
    CHECK(after_unmap.frees == 1);
  }

  TEST_CASE("alloc counter: scopes are per thread, process totals include all threads") {
    const auto before = amxqa::test::process_alloc_counts();
    std::uint64_t in_thread = 0;
    std::thread worker([&in_thread] {
      amxqa::test::AllocScope scope;
      for (int i = 0; i < 10; ++i) {
        auto owner = std::make_unique<long>(i);
        escape(owner.get());
      }
      in_thread = scope.allocations();
    });
    amxqa::test::AllocScope main_scope;  // opened after the thread's start-up allocations
    worker.join();
    const auto main_counts = main_scope.counts();
    const auto after = amxqa::test::process_alloc_counts();
    CHECK(in_thread == 10);
    CHECK(main_counts.allocations == 0);
    CHECK(after.allocations >= before.allocations + 10);
  }
}
