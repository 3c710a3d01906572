#pragma once
// Kernel times on a GPU, for the profiler: host clocks see only a launch, so each timed call is
// bracketed by two CUDA events on the device's stream, and the times are read once the stream has
// reached them (at the end of a step), without a synchronization per kernel.

#include <cuda_runtime_api.h>

#include <cstdint>
#include <vector>

namespace dynet {
namespace gpu {

class KernelTimer {
 public:
  explicit KernelTimer(cudaStream_t stream) : stream_(stream) {}
  ~KernelTimer();
  KernelTimer(const KernelTimer&) = delete;
  KernelTimer& operator=(const KernelTimer&) = delete;

  /// Marks the start of a timed call; returns its slot for stop().
  unsigned start();
  void stop(unsigned slot);
  /// Waits for the stream, returns the nanoseconds of every call since the last collect(), by
  /// slot, and reuses the events.
  std::vector<std::uint64_t> collect();

 private:
  cudaStream_t stream_;
  std::vector<cudaEvent_t> events_;  // start and stop of slot k at 2k and 2k + 1
  unsigned used_ = 0;
};

}  // namespace gpu
}  // namespace dynet
