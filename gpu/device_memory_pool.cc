#include "gpu/device_memory_pool.h"

#include <cuda_runtime_api.h>

#include <stdexcept>

namespace dynet {
namespace gpu {

DeviceMemoryPool::DeviceMemoryPool(std::string name, std::size_t initial_bytes)
    : name_(std::move(name)), initial_bytes_(initial_bytes ? initial_bytes : kAlign) {}

DeviceMemoryPool::~DeviceMemoryPool() {
  for (Block& b : blocks_) cudaFree(b.base);
}

void* DeviceMemoryPool::allocate(std::size_t bytes) {
  const std::size_t n = (bytes + kAlign - 1) & ~(kAlign - 1);
  if (n < bytes) throw std::runtime_error(name_ + ": an allocation of " + std::to_string(bytes) + " bytes overflows");
  for (; current_ < blocks_.size(); ++current_) {
    Block& b = blocks_[current_];
    if (b.size - b.used >= n) {
      char* p = b.base + b.used;
      b.used += n;
      return p;
    }
  }
  const std::size_t size = n > initial_bytes_ ? n : initial_bytes_;
  void* base = nullptr;
  const cudaError_t status = cudaMalloc(&base, size);
  if (status != cudaSuccess) {
    current_ = blocks_.empty() ? 0 : unsigned(blocks_.size() - 1);
    throw std::runtime_error(name_ + ": cudaMalloc of " + std::to_string(size) + " bytes failed (" +
                             cudaGetErrorString(status) + ", " + std::to_string(capacity()) +
                             " bytes held); raise or lower --dynet-mem, or free GPU memory");
  }
  blocks_.push_back({static_cast<char*>(base), size, n});
  current_ = unsigned(blocks_.size() - 1);
  return base;
}

void DeviceMemoryPool::revert(const Mark& m) {
  if (blocks_.empty()) return;
  for (unsigned k = m.block + 1; k < blocks_.size(); ++k) blocks_[k].used = 0;
  blocks_[m.block].used = m.used;
  current_ = m.block;
}

void DeviceMemoryPool::reset() { revert({0, 0}); }

std::size_t DeviceMemoryPool::used() const {
  std::size_t s = 0;
  for (const Block& b : blocks_) s += b.used;
  return s;
}

std::size_t DeviceMemoryPool::capacity() const {
  std::size_t s = 0;
  for (const Block& b : blocks_) s += b.size;
  return s;
}

}  // namespace gpu
}  // namespace dynet
