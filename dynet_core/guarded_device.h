#pragma once
// A CPU device whose pool memory the host cannot touch: every block is mapped with no access
// (mprotect) except while one of the device's own kernels or memory operations runs. Running the
// suites on it makes any host read or write of device memory that bypasses the device layer crash
// on a machine with no GPU, where a GPU would read garbage or fault.
//
// Blocks are whole pages (mmap), so protection never reaches host memory beside them. Opening is
// process-wide, counted, and serialised by a mutex: memory stays open while any thread is inside a
// kernel, so the thread pool's workers can help that kernel, and one thread's kernel never closes
// memory under another's. A stray host access made while another thread's kernel runs goes
// unnoticed; the suites are single-threaded apart from the pool, so they catch the rest.

#include <mutex>
#include <vector>

#include "dynet_core/device.h"

namespace dynet {

class Device_GuardedCPU : public Device_CPU {
 public:
  Device_GuardedCPU(const MemorySizes& sizes, bool debug_memory, unsigned threads = 1);
  ~Device_GuardedCPU() override;

  void* allocate_block(std::size_t bytes) override;
  void free_block(void* p, std::size_t bytes) override;

 protected:
  void enter() override;
  void leave() override;

 private:
  struct Mapping {
    void* base;
    std::size_t bytes;
  };
  void protect(const Mapping& m, bool open) const;

  std::mutex mutex_;
  unsigned open_ = 0;
  std::vector<Mapping> mappings_;
};

}  // namespace dynet
