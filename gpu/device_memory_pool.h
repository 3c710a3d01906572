#pragma once
// AlignedMemoryPool's contract over GPU memory: bump-pointer allocation in cudaMalloc'd blocks
// (never managed memory), reset and revert to a mark, growth by a new block that never moves live
// data. The host never reads these blocks; only kernels and device operations do.

#include <cstddef>
#include <string>
#include <vector>

namespace dynet {
namespace gpu {

class DeviceMemoryPool {
 public:
  static constexpr std::size_t kAlign = 256;  // cudaMalloc's own alignment; coalesced starts

  /// Takes no GPU memory until the first allocation; blocks are at least `initial_bytes`.
  DeviceMemoryPool(std::string name, std::size_t initial_bytes);
  ~DeviceMemoryPool();
  DeviceMemoryPool(const DeviceMemoryPool&) = delete;
  DeviceMemoryPool& operator=(const DeviceMemoryPool&) = delete;

  /// kAlign-aligned device memory; throws std::runtime_error naming the pool when cudaMalloc fails.
  void* allocate(std::size_t bytes);
  template <class T>
  T* allocate_array(std::size_t n) {
    return static_cast<T*>(allocate(n * sizeof(T)));
  }

  struct Mark {
    unsigned block;
    std::size_t used;
  };
  Mark mark() const { return {current_, blocks_.empty() ? 0 : blocks_[current_].used}; }
  void revert(const Mark& m);
  void reset();
  std::size_t used() const;
  std::size_t capacity() const;
  const std::string& name() const { return name_; }

 private:
  struct Block {
    char* base;
    std::size_t size;
    std::size_t used;
  };
  std::string name_;
  std::size_t initial_bytes_;
  std::vector<Block> blocks_;
  unsigned current_ = 0;
};

}  // namespace gpu
}  // namespace dynet
