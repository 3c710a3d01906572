#include "dynet_core/device/guarded_device.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>

namespace dynet {

namespace {
// Address space only: untouched reserved pages cost no memory, and closed ones no commit charge.
constexpr std::size_t kReserve = std::size_t(64) << 30;
// The arena grows in whole transparent huge pages, so that every page of it can be one.
constexpr std::size_t kHugePage = std::size_t(2) << 20;

std::size_t round_up(std::size_t n, std::size_t unit) { return (n + unit - 1) / unit * unit; }

// Pools start this small here whatever their configured size, and grow on demand: the toggle's
// cost grows with the arena's extent, and the suites' graphs are small.
constexpr std::size_t kFirstBlock = std::size_t(1) << 20;
MemorySizes small_first_blocks(const MemorySizes& s) {
  auto cap = [](std::size_t n) { return n < kFirstBlock ? n : kFirstBlock; };
  return {cap(s.forward), cap(s.backward), cap(s.parameters), cap(s.scratch)};
}

[[noreturn]] void fail(const char* call) {
  throw std::runtime_error(std::string("guarded device: ") + call + " failed: " + std::strerror(errno));
}
}  // namespace

Device_GuardedCPU::Device_GuardedCPU(const MemorySizes& sizes, bool debug_memory, unsigned threads)
    : Device_CPU("CPU (guarded)", small_first_blocks(sizes), debug_memory, threads, true) {
  void* p = mmap(nullptr, kReserve + kHugePage, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) fail("mmap");
  // Huge-page aligned, so that the arena's pages can be huge ones from its first byte.
  const std::uintptr_t start = reinterpret_cast<std::uintptr_t>(p);
  const std::uintptr_t aligned = round_up(start, kHugePage);
  if (aligned > start) munmap(p, aligned - start);
  munmap(reinterpret_cast<char*>(aligned) + kReserve, kHugePage - (aligned - start));
  base_ = reinterpret_cast<char*>(aligned);
  reserved_ = kReserve;
}

Device_GuardedCPU::~Device_GuardedCPU() {
  release_pools();
  munmap(base_, reserved_);
}

std::size_t Device_GuardedCPU::arena_bytes() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return arena_;
}

void Device_GuardedCPU::protect(std::size_t offset, std::size_t bytes, bool open) const {
  if (bytes && mprotect(base_ + offset, bytes, open ? PROT_READ | PROT_WRITE : PROT_NONE) != 0) fail("mprotect");
}

void Device_GuardedCPU::grow_arena(std::size_t bytes) {
  protect(arena_, bytes - arena_, open_ > 0);
  // The huge-page flag also sets the arena apart from the rest of the reservation: the kernel
  // keeps them as two mappings, so one mprotect over the arena never splits a mapping. Without
  // transparent huge pages this fails and the arena is ordinary pages, only slower to toggle.
  madvise(base_ + arena_, bytes - arena_, MADV_HUGEPAGE);
  arena_ = bytes;
}

void* Device_GuardedCPU::allocate_block(std::size_t bytes) {
  const std::size_t n = round_up(bytes, static_cast<std::size_t>(sysconf(_SC_PAGESIZE)));
  if (n < bytes || n > reserved_) return nullptr;
  std::lock_guard<std::mutex> lock(mutex_);
  for (auto it = free_.begin(); it != free_.end(); ++it) {
    if (it->second < n) continue;
    const std::size_t offset = it->first;
    const std::size_t rest = it->second - n;
    free_.erase(it);
    if (rest) free_.emplace(offset + n, rest);
    return base_ + offset;
  }
  // Nothing free fits: the block goes at the end, taking in a free range that ends the arena.
  std::size_t offset = arena_;
  if (!free_.empty() && free_.rbegin()->first + free_.rbegin()->second == arena_) {
    offset = free_.rbegin()->first;
    free_.erase(std::prev(free_.end()));
  }
  if (n > reserved_ - offset) return nullptr;
  const std::size_t end = offset + n;
  grow_arena(round_up(end, kHugePage) < reserved_ ? round_up(end, kHugePage) : reserved_);
  if (arena_ > end) free_.emplace(end, arena_ - end);
  return base_ + offset;
}

void Device_GuardedCPU::free_block(void* p, std::size_t bytes) {
  std::size_t offset = static_cast<std::size_t>(static_cast<char*>(p) - base_);
  std::size_t n = round_up(bytes, static_cast<std::size_t>(sysconf(_SC_PAGESIZE)));
  std::lock_guard<std::mutex> lock(mutex_);
  auto next = free_.lower_bound(offset);
  if (next != free_.end() && offset + n == next->first) {
    n += next->second;
    next = free_.erase(next);
  }
  if (next != free_.begin()) {
    auto prev = std::prev(next);
    if (prev->first + prev->second == offset) {
      offset = prev->first;
      n += prev->second;
      free_.erase(prev);
    }
  }
  free_.emplace(offset, n);
}

void Device_GuardedCPU::check_device_memory(const void* p, std::size_t bytes, const char* who) const {
  const char* c = static_cast<const char*>(p);
  std::lock_guard<std::mutex> lock(mutex_);
  if (c >= base_ && c <= base_ + arena_ && bytes <= static_cast<std::size_t>(base_ + arena_ - c)) return;
  throw std::logic_error(std::string(who) + ": " + std::to_string(bytes) + " bytes at " +
                         std::to_string(reinterpret_cast<std::uintptr_t>(p)) + " are not memory of device " + name +
                         " (host memory given where device memory belongs)");
}

void Device_GuardedCPU::enter() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (open_++ == 0) protect(0, arena_, true);
}

void Device_GuardedCPU::leave() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (--open_ == 0) protect(0, arena_, false);
}

}  // namespace dynet
