#include "dynet_core/device/shared_host_blocks.h"

#include <sys/mman.h>

namespace dynet {

void* SharedHostBlocks::allocate_block(std::size_t bytes) {
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  return p == MAP_FAILED ? nullptr : p;
}

void SharedHostBlocks::free_block(void* p, std::size_t bytes) { munmap(p, bytes); }

SharedHostBlocks& SharedHostBlocks::instance() {
  // Never destroyed, as HostBlocks::instance(): static pools return their blocks at exit.
  static SharedHostBlocks* const blocks = new SharedHostBlocks;
  return *blocks;
}

}  // namespace dynet
