#pragma once
// Device_GPU: one CUDA device with its memory pools (cudaMalloc'd blocks), one stream that every
// kernel and device operation of it is ordered on, and one cuBLAS handle bound to that stream.

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <cstddef>
#include <vector>

#include "dynet_core/device.h"
#include "gpu/device_memory_pool.h"
#include "gpu/device_operations.h"

namespace dynet {

class Device_GPU : public Device {
 public:
  /// GPU `cuda_id` as --dynet-devices names it (GPU:0 is 0), named "GPU:<id>". Throws
  /// std::runtime_error naming the id and the number of visible GPUs when there is no such GPU.
  Device_GPU(int cuda_id, const MemorySizes& sizes);
  ~Device_GPU() override;

  const int cuda_device_id;
  cudaStream_t stream() const { return stream_; }
  cublasHandle_t cublas() const { return cublas_; }

  gpu::DeviceMemoryPool& parameter_memory() { return parameters_; }
  gpu::DeviceMemoryPool& forward_memory() { return forward_; }
  gpu::DeviceMemoryPool& backward_memory() { return backward_; }
  /// Kernel temporaries: kernels take what they need, the caller of the kernel resets it.
  gpu::DeviceMemoryPool& scratch_memory() { return scratch_; }

  /// Device operations, all ordered on stream(): device-to-device copy, zeroing, dst += src.
  void copy(float* dst, const float* src, std::size_t n);
  void zero(float* dst, std::size_t n);
  void accumulate(float* dst, const float* src, std::size_t n);
  /// Host to device and back; to_host returns once the values are on the host.
  void to_device(float* dst, const float* host, std::size_t n);
  void to_host(float* host, const float* src, std::size_t n);
  void synchronize();
  /// A whole group in one launch: run k of `lengths[k]` floats from srcs[k] (gather) to dst, one
  /// run after the other; scatter_add adds the runs of src back into dsts[k], which may repeat.
  void gather(float* dst, const float* const* srcs, const unsigned* lengths, unsigned runs);
  void scatter_add(float* const* dsts, const float* src, const unsigned* lengths, unsigned runs);
  /// Every run of `runs` (host list, device memory) in one launch.
  void move(const std::vector<gpu::CopyBlock>& runs, gpu::BlockMode mode);

 private:
  cudaStream_t stream_ = nullptr;
  cublasHandle_t cublas_ = nullptr;
  gpu::DeviceMemoryPool parameters_, forward_, backward_, scratch_;
};

namespace gpu {
/// How many CUDA devices this process sees: 0 without a GPU or a driver. Never throws.
int visible_gpus();
}  // namespace gpu

}  // namespace dynet
