#include "gpu/kernel_timer.h"

#include "gpu/cuda_check.h"

namespace dynet {
namespace gpu {

KernelTimer::~KernelTimer() {
  for (cudaEvent_t e : events_) cudaEventDestroy(e);
}

unsigned KernelTimer::start() {
  if (2 * used_ == events_.size())
    for (int k = 0; k < 2; ++k) {
      cudaEvent_t e;
      check_cuda(cudaEventCreate(&e), "KernelTimer: cudaEventCreate");
      events_.push_back(e);
    }
  check_cuda(cudaEventRecord(events_[2 * used_], stream_), "KernelTimer: cudaEventRecord");
  return used_++;
}

void KernelTimer::stop(unsigned slot) {
  check_cuda(cudaEventRecord(events_[2 * slot + 1], stream_), "KernelTimer: cudaEventRecord");
}

std::vector<std::uint64_t> KernelTimer::collect() {
  check_cuda(cudaStreamSynchronize(stream_), "KernelTimer: cudaStreamSynchronize");
  std::vector<std::uint64_t> ns(used_);
  for (unsigned k = 0; k < used_; ++k) {
    float ms = 0.f;
    check_cuda(cudaEventElapsedTime(&ms, events_[2 * k], events_[2 * k + 1]), "KernelTimer: cudaEventElapsedTime");
    ns[k] = static_cast<std::uint64_t>(double(ms) * 1e6);
  }
  used_ = 0;
  return ns;
}

}  // namespace gpu
}  // namespace dynet
