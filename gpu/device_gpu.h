#pragma once
// Device_GPU: one CUDA device whose pools take cudaMalloc'd blocks (never managed memory), one
// stream that every kernel and device operation of it is ordered on, and one cuBLAS handle bound
// to that stream. The Device contract (dynet_core/device.h) holds: the host never reads its blocks.

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <cstddef>
#include <memory>
#include <vector>

#include "dynet_core/device.h"
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
  double squared_norm(const float* x, std::size_t n) override;
  void apply_runs(RunOp op, const MemoryRun* runs, std::size_t count) override;
  void synchronize() override;
  /// Fused chains run as one kernel each (fused_chains.cu).
  bool runs_chains() const override { return true; }
  void run_chain_forward(const ChainProgram& chain, const ChainRun& run) override;
  void run_chain_backward(const ChainProgram& chain, const ChainRun& run) override;

  /// A whole group in one launch: run k of `lengths[k]` floats from srcs[k] (gather) to dst, one
  /// run after the other; scatter_add adds the runs of src back into dsts[k], which may repeat.
  void gather(float* dst, const float* const* srcs, const unsigned* lengths, unsigned runs);
  void scatter_add(float* const* dsts, const float* src, const unsigned* lengths, unsigned runs);
  /// Every run of `runs` (host list, device memory) in one launch.
  void move(const std::vector<gpu::CopyBlock>& runs, gpu::BlockMode mode);
  /// A device copy of n host indices (the rows of a sparse update), valid for the launches issued
  /// before the next call.
  const unsigned* stage_indices(const unsigned* host, std::size_t n);

 private:
  /// A device buffer for host lists, grown on demand; reusing it is safe because every launch
  /// that reads it is ordered on stream_ before the copy that overwrites it.
  struct Staging {
    void* data = nullptr;
    std::size_t capacity = 0;
  };
  /// Grows `s` to hold `bytes`; returns its device memory.
  void* reserve(Staging& s, std::size_t bytes, const char* who);
  /// Copies `bytes` of host memory into `s` on the stream; returns the device copy.
  void* stage(Staging& s, const void* host, std::size_t bytes, const char* who);
  /// Packs a chain and its run into chain_block_, copies it to chain_staging_ and returns it as
  /// the kernels read it.
  gpu::ElementChain stage_chain(const ChainProgram& chain, const ChainRun& run);

  cudaStream_t stream_ = nullptr;
  cublasHandle_t cublas_ = nullptr;
  Staging run_list_;
  Staging indices_;
  Staging chain_staging_;
  std::vector<unsigned char> chain_block_;
  std::unique_ptr<gpu::KernelTimer> timer_;  // the profiler's clock
  double* norm_ = nullptr;  // squared_norm's device accumulator
};

namespace gpu {
/// How many CUDA devices this process sees: 0 without a GPU or a driver. Never throws.
int visible_gpus();
}  // namespace gpu

}  // namespace dynet
