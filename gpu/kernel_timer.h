#pragma once
// Kernel times on a GPU, for the profiler: host clocks see only a launch, so each timed call is
// bracketed by two CUDA events on the device's stream, and the times are read once the stream has
// reached them (at the end of a step), without a synchronization per kernel. Device_GPU's clock
// (KernelClock, dynet_core/device/device.h).
//
// The profiler's steps are per thread, so are the slots: each thread that drives the device
// times its own calls and collects its own. On the one stream a thread's interval also covers
// kernels other threads launched between its two events.

#include <cuda_runtime_api.h>

#include <cstdint>
#include <mutex>
#include <thread>
#include <unordered_map>
#include <vector>

#include "dynet_core/device/device.h"

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
  /// Waits for the stream; returns the calling thread's times and reuses its events.
  std::vector<std::uint64_t> collect() override;

 private:
  struct Slots {
    std::vector<cudaEvent_t> events;  // start and stop of slot k at 2k and 2k + 1
    unsigned used = 0;
  };
  /// The calling thread's slots; with mutex_ held.
  Slots& mine() { return slots_[std::this_thread::get_id()]; }

  cudaStream_t stream_;
  std::mutex mutex_;
  std::unordered_map<std::thread::id, Slots> slots_;
};

}  // namespace gpu
}  // namespace dynet
