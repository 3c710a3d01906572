#pragma once
// Device_GPU: one CUDA device whose pools take cudaMalloc'd blocks (never managed memory), one
// stream that every kernel and device operation of it is ordered on, and one cuBLAS handle bound
// to that stream. The Device contract (dynet_core/device/device.h) holds: the host never reads its blocks.
//
// Several threads may drive one Device_GPU (DataParallel, ShardedTraining, concurrent backward
// passes). Every entry first makes this GPU the calling thread's current CUDA device, since a
// thread starts on GPU 0. Host lists staged for a kernel (run lists, sparse rows, fused chains)
// share one device buffer each, so staging and the launches that read it hold one lock: on the
// one stream, thread A's copy, thread B's copy, A's kernel would otherwise run over B's list, and
// a buffer that grows would be freed under a launch of another thread. The lock costs tens of
// nanoseconds uncontended against microseconds for the copy and the launch it guards; threads
// that share one stream serialise on the GPU anyway.

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <cstddef>
#include <memory>
#include <mutex>
#include <vector>

#include "dynet_core/device/device.h"
#include "gpu/device_operations.h"
#include "gpu/kernel_timer.h"

namespace dynet {

namespace gpu {
struct ElementChain;
}  // namespace gpu

class Device_GPU : public Device {
 public:
  /// GPU `cuda_id` as --dynet-devices names it (GPU:0 is 0), named "GPU:<id>". Throws
  /// std::runtime_error naming the id and the number of visible GPUs when there is no such GPU.
  Device_GPU(int cuda_id, const MemorySizes& sizes, bool debug_memory = false);
  ~Device_GPU() override;

  const int cuda_device_id;
  cudaStream_t stream() const { return stream_; }
  cublasHandle_t cublas() const { return cublas_; }

  void* allocate_block(std::size_t bytes) override;
  void free_block(void* p, std::size_t bytes) override;
  void poison(void* p, std::size_t bytes, std::size_t footprint) override;
  bool canary_intact(const void* p, std::size_t bytes, std::size_t footprint) override;
  void copy(float* dst, const float* src, std::size_t n) override;
  void zero(float* dst, std::size_t n) override;
  void fill(float* dst, float value, std::size_t n) override;
  void scale(float* y, float a, std::size_t n) override;
  void accumulate(float* y, const float* x, std::size_t n) override;
  void to_device(float* dst, const float* host_src, std::size_t n) override;
  void to_host(float* host_dst, const float* src, std::size_t n) override;
  void scaled_sum(float* y, float a, const float* x, float b, std::size_t n) override;
  double squared_norm(const float* x, std::size_t n) override;
  double squared_norm(const MemoryRun* runs, std::size_t count) override;
  void apply_runs(RunOp op, const MemoryRun* runs, std::size_t count) override;
  void synchronize() override;
  /// Fused chains run as one kernel each (fused_chains.cu).
  void run_chain_forward(const ChainProgram& chain, const ChainRun& run) override;
  void run_chain_backward(const ChainProgram& chain, const ChainRun& run) override;

  /// A whole group in one launch: run k of `lengths[k]` floats from srcs[k] (gather) to dst, one
  /// run after the other; scatter_add adds the runs of src back into dsts[k], which may repeat.
  void gather(float* dst, const float* const* srcs, const unsigned* lengths, unsigned runs);
  void scatter_add(float* const* dsts, const float* src, const unsigned* lengths, unsigned runs);
  /// Every run of `runs` (host list, device memory) in one launch.
  void move(const std::vector<gpu::CopyBlock>& runs, gpu::BlockMode mode);
  /// Calls `launch` with a device copy of n host indices (the rows of a sparse update), under the
  /// staging lock, so that no other thread's staging overwrites them before the launch reads them.
  template <class Launch>
  void launch_with_indices(const unsigned* host, std::size_t n, Launch&& launch) {
    make_current();
    const std::lock_guard<std::mutex> lock(staging_mutex_);
    launch(static_cast<const unsigned*>(stage(indices_, host, n * sizeof(unsigned), "Device_GPU: staged indices")));
  }

  /// Makes this GPU the calling thread's current CUDA device, where another one is.
  void make_current() const;

 protected:
  void enter() override { make_current(); }

 private:
  /// A device buffer for host lists, grown on demand; reusing it is safe because every launch
  /// that reads it is ordered on stream_ before the copy that overwrites it.
  struct Staging {
    void* data = nullptr;
    std::size_t capacity = 0;
  };
  /// Grows `s` to hold `bytes`; returns its device memory. With staging_mutex_ held.
  void* reserve(Staging& s, std::size_t bytes, const char* who);
  /// Copies `bytes` of host memory into `s` on the stream; returns the device copy. With
  /// staging_mutex_ held.
  void* stage(Staging& s, const void* host, std::size_t bytes, const char* who);
  /// Packs a chain and its run into chain_block_, copies it to chain_staging_ and returns it as
  /// the kernels read it. With staging_mutex_ held.
  gpu::ElementChain stage_chain(const ChainProgram& chain, const ChainRun& run);
  /// Stages pieces_ and moves them in one launch. With staging_mutex_ held.
  void launch_pieces(gpu::BlockMode mode);

  cudaStream_t stream_ = nullptr;
  cublasHandle_t cublas_ = nullptr;
  /// Held from staging a host list to the launch that reads it; guards every member below.
  std::mutex staging_mutex_;
  Staging run_list_;
  Staging indices_;
  Staging chain_staging_;
  Staging norms_;  // squared_norm's device results, one double per run
  std::vector<unsigned char> chain_block_;
  std::vector<gpu::CopyBlock> pieces_;  // move's runs, long ones split
  std::vector<double> host_norms_;
  std::unique_ptr<gpu::KernelTimer> timer_;  // the profiler's clock
};

namespace gpu {
/// How many CUDA devices this process sees: 0 without a GPU or a driver. Never throws.
int visible_gpus();
}  // namespace gpu

}  // namespace dynet
