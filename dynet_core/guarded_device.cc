#include "dynet_core/guarded_device.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>

namespace dynet {

namespace {
std::size_t whole_pages(std::size_t bytes) {
  const std::size_t page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  return (bytes + page - 1) / page * page;
}
}  // namespace

Device_GuardedCPU::Device_GuardedCPU(const MemorySizes& sizes, bool debug_memory, unsigned threads)
    : Device_CPU("CPU (guarded)", sizes, debug_memory, threads, true) {}

Device_GuardedCPU::~Device_GuardedCPU() { release_pools(); }

void Device_GuardedCPU::protect(const Mapping& m, bool open) const {
  if (mprotect(m.base, m.bytes, open ? PROT_READ | PROT_WRITE : PROT_NONE) != 0)
    throw std::runtime_error("guarded device: mprotect failed: " + std::string(std::strerror(errno)));
}

void* Device_GuardedCPU::allocate_block(std::size_t bytes) {
  const std::size_t n = whole_pages(bytes);
  std::lock_guard<std::mutex> lock(mutex_);
  void* p = mmap(nullptr, n, open_ ? PROT_READ | PROT_WRITE : PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return nullptr;
  mappings_.push_back({p, n});
  return p;
}

void Device_GuardedCPU::free_block(void* p, std::size_t bytes) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = std::find_if(mappings_.begin(), mappings_.end(), [&](const Mapping& m) { return m.base == p; });
  if (it != mappings_.end()) mappings_.erase(it);
  munmap(p, whole_pages(bytes));
}

void Device_GuardedCPU::enter() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (open_++ == 0)
    for (const Mapping& m : mappings_) protect(m, true);
}

void Device_GuardedCPU::leave() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (--open_ == 0)
    for (const Mapping& m : mappings_) protect(m, false);
}

}  // namespace dynet
