#include "gpu/kernel_timer.h"

#include "gpu/cuda_check.h"

namespace dynet {
namespace gpu {

KernelTimer::~KernelTimer() {
  for (auto& thread : slots_)
    for (cudaEvent_t e : thread.second.events) cudaEventDestroy(e);
}

unsigned KernelTimer::start() {
  const std::lock_guard<std::mutex> lock(mutex_);
  Slots& s = mine();
  if (2 * s.used == s.events.size()) {
    s.events.reserve(s.events.size() + 2);
    for (int k = 0; k < 2; ++k) {
      cudaEvent_t e;
      check_cuda(cudaEventCreate(&e), "KernelTimer: cudaEventCreate");
      s.events.push_back(e);
    }
  }
  check_cuda(cudaEventRecord(s.events[2 * s.used], stream_), "KernelTimer: cudaEventRecord");
  return s.used++;
}

void KernelTimer::stop(unsigned slot) {
  const std::lock_guard<std::mutex> lock(mutex_);
  check_cuda(cudaEventRecord(mine().events[2 * slot + 1], stream_), "KernelTimer: cudaEventRecord");
}

std::vector<std::uint64_t> KernelTimer::collect() {
  check_cuda(cudaStreamSynchronize(stream_), "KernelTimer: cudaStreamSynchronize");
  const std::lock_guard<std::mutex> lock(mutex_);
  Slots& s = mine();
  std::vector<std::uint64_t> ns(s.used);
  for (unsigned k = 0; k < s.used; ++k) {
    float ms = 0.f;
    check_cuda(cudaEventElapsedTime(&ms, s.events[2 * k], s.events[2 * k + 1]), "KernelTimer: cudaEventElapsedTime");
    ns[k] = static_cast<std::uint64_t>(double(ms) * 1e6);
  }
  s.used = 0;
  return ns;
}

}  // namespace gpu
}  // namespace dynet
