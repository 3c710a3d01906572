#include "common/heap_counter.h"

#include <atomic>
#include <cstdlib>

extern "C" {
void* __libc_malloc(std::size_t);
void* __libc_calloc(std::size_t, std::size_t);
void* __libc_realloc(void*, std::size_t);
void* __libc_memalign(std::size_t, std::size_t);
}

namespace {
std::atomic<bool> counting{false};
std::atomic<std::size_t> calls{0}, bytes{0};

void note(std::size_t n) {
  if (counting.load(std::memory_order_relaxed)) {
    calls.fetch_add(1, std::memory_order_relaxed);
    bytes.fetch_add(n, std::memory_order_relaxed);
  }
}
}  // namespace

extern "C" {
void* malloc(std::size_t n) {
  note(n);
  return __libc_malloc(n);
}
void* calloc(std::size_t k, std::size_t n) {
  note(k * n);
  return __libc_calloc(k, n);
}
void* realloc(void* p, std::size_t n) {
  note(n);
  return __libc_realloc(p, n);
}
void* aligned_alloc(std::size_t a, std::size_t n) {
  note(n);
  return __libc_memalign(a, n);
}
void* memalign(std::size_t a, std::size_t n) {
  note(n);
  return __libc_memalign(a, n);
}
int posix_memalign(void** out, std::size_t a, std::size_t n) {
  note(n);
  *out = __libc_memalign(a, n);
  return *out ? 0 : 12;
}
}

namespace bench {

void start_heap_count() {
  calls = 0;
  bytes = 0;
  counting = true;
}

HeapCount stop_heap_count() {
  counting = false;
  return {calls.load(), bytes.load()};
}

}  // namespace bench
