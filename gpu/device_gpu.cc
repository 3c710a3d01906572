#include "gpu/device_gpu.h"

#include <string>
#include <vector>

#include "gpu/cuda_check.h"

namespace dynet {

namespace {

int checked_gpu(int cuda_id) {
  const int n = gpu::visible_gpus();
  if (cuda_id < 0 || cuda_id >= n)
    throw std::runtime_error("Device_GPU: GPU:" + std::to_string(cuda_id) + " was asked for, but " +
                             (n == 0 ? std::string("no CUDA device is visible")
                                     : std::to_string(n) + " CUDA device(s) are visible (GPU:0 to GPU:" +
                                           std::to_string(n - 1) + ")"));
  gpu::check_cuda(cudaSetDevice(cuda_id), "Device_GPU: cudaSetDevice");
  return cuda_id;
}

}  // namespace

Device_GPU::Device_GPU(int cuda_id, const MemorySizes& sizes)
    : Device(DeviceType::GPU, "GPU:" + std::to_string(cuda_id), sizes, false),
      cuda_device_id(checked_gpu(cuda_id)),
      parameters_("GPU parameter memory (PS)", sizes.parameters),
      forward_("GPU forward memory (FXS)", sizes.forward),
      backward_("GPU backward memory (DEDFS)", sizes.backward),
      scratch_("GPU scratch memory (SCS)", sizes.scratch) {
  gpu::check_cuda(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "Device_GPU: cudaStreamCreate");
  try {
    gpu::check_cublas(cublasCreate(&cublas_), "Device_GPU: cublasCreate");
    gpu::check_cublas(cublasSetStream(cublas_, stream_), "Device_GPU: cublasSetStream");
  } catch (...) {
    if (cublas_) cublasDestroy(cublas_);
    cudaStreamDestroy(stream_);
    throw;
  }
}

Device_GPU::~Device_GPU() {
  cudaStreamSynchronize(stream_);
  cublasDestroy(cublas_);
  cudaStreamDestroy(stream_);
}

void Device_GPU::copy(float* dst, const float* src, std::size_t n) {
  gpu::check_cuda(cudaMemcpyAsync(dst, src, n * sizeof(float), cudaMemcpyDeviceToDevice, stream_), "Device_GPU::copy");
}

void Device_GPU::zero(float* dst, std::size_t n) {
  gpu::check_cuda(cudaMemsetAsync(dst, 0, n * sizeof(float), stream_), "Device_GPU::zero");
}

void Device_GPU::accumulate(float* dst, const float* src, std::size_t n) {
  gpu::launch_accumulate(dst, src, n, stream_);
}

void Device_GPU::to_device(float* dst, const float* host, std::size_t n) {
  gpu::check_cuda(cudaMemcpyAsync(dst, host, n * sizeof(float), cudaMemcpyHostToDevice, stream_),
                  "Device_GPU::to_device");
}

void Device_GPU::to_host(float* host, const float* src, std::size_t n) {
  gpu::check_cuda(cudaMemcpyAsync(host, src, n * sizeof(float), cudaMemcpyDeviceToHost, stream_),
                  "Device_GPU::to_host");
  synchronize();
}

void Device_GPU::synchronize() { gpu::check_cuda(cudaStreamSynchronize(stream_), "Device_GPU::synchronize"); }

void Device_GPU::move(const std::vector<gpu::CopyBlock>& runs, gpu::BlockMode mode) {
  if (runs.empty()) return;
  gpu::CopyBlock* list = scratch_.allocate_array<gpu::CopyBlock>(runs.size());
  gpu::check_cuda(cudaMemcpyAsync(list, runs.data(), runs.size() * sizeof(gpu::CopyBlock), cudaMemcpyHostToDevice,
                                  stream_),
                  "Device_GPU::move");
  gpu::launch_blocks(list, runs.size(), mode, stream_);
}

void Device_GPU::gather(float* dst, const float* const* srcs, const unsigned* lengths, unsigned runs) {
  std::vector<gpu::CopyBlock> list(runs);
  for (unsigned r = 0; r < runs; dst += lengths[r], ++r) list[r] = {srcs[r], dst, lengths[r]};
  move(list, gpu::BlockMode::Copy);
}

void Device_GPU::scatter_add(float* const* dsts, const float* src, const unsigned* lengths, unsigned runs) {
  std::vector<gpu::CopyBlock> list(runs);
  for (unsigned r = 0; r < runs; src += lengths[r], ++r) list[r] = {src, dsts[r], lengths[r]};
  move(list, gpu::BlockMode::AtomicAdd);
}

namespace gpu {

int visible_gpus() {
  int n = 0;
  if (cudaGetDeviceCount(&n) == cudaSuccess) return n;
  cudaGetLastError();  // no driver or no GPU: not an error that later calls should see
  return 0;
}

}  // namespace gpu
}  // namespace dynet
