#pragma once
// Kernel times on a GPU, for the profiler: host clocks see only a launch, so each timed call is
// bracketed by two CUDA events on the device's stream, and the times are read once the stream has
// reached them (at the end of a step), without a synchronization per kernel. Device_GPU's clock
// (KernelClock, dynet_core/device.h).

#include <cuda_runtime_api.h>

#include <cstdint>
#include <vector>

#include "dynet_core/device.h"

namespace dynet {
namespace gpu {

class KernelTimer : public KernelClock {
 public:
  explicit KernelTimer(cudaStream_t stream) : stream_(stream) {}
  ~KernelTimer() override;
  KernelTimer(const KernelTimer&) = delete;
  KernelTimer& operator=(const KernelTimer&) = delete;

  unsigned start() override;
  void stop(unsigned slot) override;
  /// Waits for the stream; reuses the events.
  std::vector<std::uint64_t> collect() override;

 private:
  cudaStream_t stream_;
  std::vector<cudaEvent_t> events_;  // start and stop of slot k at 2k and 2k + 1
  unsigned used_ = 0;
};

}  // namespace gpu
}  // namespace dynet
