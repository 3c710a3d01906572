#pragma once
// A CPU device whose pool memory the host cannot touch: every block is mapped with no access
// (mprotect) except while one of the device's own kernels or memory operations runs. Running the
// suites on it makes any host read or write of device memory that bypasses the device layer crash
// on a machine with no GPU, where a GPU would read garbage or fault.
//
// Opening and closing memory happens twice per kernel, so its cost decides whether whole suites
// can run here. All blocks therefore lie in one arena: one mapping (one VMA) at the start of a
// large address-space reservation, backed by transparent huge pages, toggled by a single mprotect
// over exactly that mapping. The kernel then neither splits nor merges mappings nor visits one
// page-table entry per 4 KiB page; the arena grows in place when blocks outgrow it. Blocks are
// whole pages, so protection never reaches host memory beside them; freed blocks return to the
// arena, closed like the rest.
//
// Every memory operation and kernel call also checks that the memory it is given lies in the
// arena: a host pointer handed over as device memory is refused with an error naming the
// operation, as a GPU would fault on it or read garbage.
//
// Opening is process-wide, counted, and serialised by a mutex: memory stays open while any thread
// is inside a kernel, so the thread pool's workers can help that kernel, and one thread's kernel
// never closes memory under another's. A stray host access made while another thread's kernel
// runs goes unnoticed; the suites are single-threaded apart from the pool, so they catch the rest.

#include <cstddef>
#include <map>
#include <mutex>

#include "dynet_core/device/device.h"

namespace dynet {

class Device_GuardedCPU : public Device_CPU {
 public:
  Device_GuardedCPU(const MemorySizes& sizes, bool debug_memory, unsigned threads = 1);
  ~Device_GuardedCPU() override;

  void* allocate_block(std::size_t bytes) override;
  void free_block(void* p, std::size_t bytes) override;

  /// Bytes of the arena that opening and closing cover (the high water of its blocks).
  std::size_t arena_bytes() const;

 protected:
  void enter() override;
  void leave() override;
  void check_device_memory(const void* p, std::size_t bytes, const char* who) const override;

 private:
  void protect(std::size_t offset, std::size_t bytes, bool open) const;
  void grow_arena(std::size_t bytes);

  mutable std::mutex mutex_;
  unsigned open_ = 0;
  char* base_ = nullptr;  ///< the reservation; the arena is its first arena_ bytes
  std::size_t reserved_ = 0;
  std::size_t arena_ = 0;
  std::map<std::size_t, std::size_t> free_;  ///< free ranges of the arena: offset -> bytes
};

}  // namespace dynet
