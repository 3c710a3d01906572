#pragma once
// DyNet's allocator interface (<dynet/mem.h>): aligned host memory for code that manages its own
// buffers. The library's pools take their blocks from BlockSource (aligned_memory_pool.h); this
// is the interface DyNet programs may name.

#include <cstddef>

namespace dynet {

struct MemAllocator {
  explicit MemAllocator(int align) : align(align) {}
  MemAllocator(const MemAllocator&) = delete;
  MemAllocator& operator=(const MemAllocator&) = delete;
  virtual ~MemAllocator() = default;
  /// At least n bytes aligned to `align`; throws std::bad_alloc when the system refuses.
  virtual void* malloc(std::size_t n) = 0;
  virtual void free(void* mem) = 0;
  virtual void zero(void* p, std::size_t n) = 0;
  /// n rounded up to a multiple of align.
  std::size_t round_up_align(std::size_t n) const {
    return align < 2 ? n : (n + std::size_t(align) - 1) / std::size_t(align) * std::size_t(align);
  }
  int align;
};

/// Host memory aligned to 32 bytes, as DyNet's.
struct CPUAllocator : public MemAllocator {
  CPUAllocator() : MemAllocator(32) {}
  void* malloc(std::size_t n) override;
  void free(void* mem) override;
  void zero(void* p, std::size_t n) override;
};

}  // namespace dynet
