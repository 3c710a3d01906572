#include "dynet_core/device/mem_allocator.h"

#include <cstdlib>
#include <cstring>
#include <new>

namespace dynet {

void* CPUAllocator::malloc(std::size_t n) {
  // aligned_alloc wants a size that is a multiple of the alignment, and some systems give null for 0.
  void* p = std::aligned_alloc(std::size_t(align), round_up_align(n == 0 ? 1 : n));
  if (!p) throw std::bad_alloc();
  return p;
}

void CPUAllocator::free(void* mem) { std::free(mem); }

void CPUAllocator::zero(void* p, std::size_t n) { std::memset(p, 0, n); }

}  // namespace dynet
