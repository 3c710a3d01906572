#include "gpu/device_operations.h"

#include "gpu/cuda_check.h"
#include "gpu/launch.cuh"

namespace dynet {
namespace gpu {

namespace {

__global__ void fill_kernel(float* dst, float value, std::size_t n) {
  DYBATCH_GRID_STRIDE(i, n) dst[i] = value;
}

__global__ void scaled_add_kernel(float* dst, float a, const float* src, std::size_t n, bool overwrite) {
  DYBATCH_GRID_STRIDE(i, n) dst[i] = overwrite ? a * src[i] : dst[i] + a * src[i];
}

__global__ void scale_kernel(float* y, float a, std::size_t n) {
  DYBATCH_GRID_STRIDE(i, n) y[i] *= a;
}

__global__ void squared_norm_kernel(double* result, const float* x, std::size_t n) {
  __shared__ double partial[kThreads];
  double s = 0;
  DYBATCH_GRID_STRIDE(i, n) s += double(x[i]) * x[i];
  partial[threadIdx.x] = s;
  __syncthreads();
  for (unsigned half = blockDim.x / 2; half > 0; half /= 2) {
    if (threadIdx.x < half) partial[threadIdx.x] += partial[threadIdx.x + half];
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicAdd(result, partial[0]);
}

__global__ void blocks_kernel(const CopyBlock* blocks, std::size_t count, BlockMode mode) {
  for (std::size_t b = blockIdx.x; b < count; b += gridDim.x) {
    const CopyBlock k = blocks[b];
    for (unsigned e = threadIdx.x; e < k.n; e += blockDim.x) {
      if (mode == BlockMode::Copy)
        k.to[e] = k.from[e];
      else if (mode == BlockMode::Zero)
        k.to[e] = 0.f;
      else if (mode == BlockMode::Add)
        k.to[e] += k.from[e];
      else
        atomicAdd(k.to + e, k.from[e]);
    }
  }
}

__global__ void block_squared_norms_kernel(double* sums, const CopyBlock* blocks, std::size_t count) {
  __shared__ double partial[kThreads];
  for (std::size_t b = blockIdx.x; b < count; b += gridDim.x) {
    const CopyBlock k = blocks[b];
    double s = 0;
    for (unsigned e = threadIdx.x; e < k.n; e += kThreads) s += double(k.from[e]) * k.from[e];
    partial[threadIdx.x] = s;
    __syncthreads();
    for (unsigned half = kThreads / 2; half > 0; half /= 2) {
      if (threadIdx.x < half) partial[threadIdx.x] += partial[threadIdx.x + half];
      __syncthreads();
    }
    if (threadIdx.x == 0) sums[b] = partial[0];
    __syncthreads();
  }
}

}  // namespace

void launch_block_squared_norms(double* sums, const CopyBlock* blocks, std::size_t count, cudaStream_t stream) {
  if (count == 0) return;
  block_squared_norms_kernel<<<unsigned(count < 65535 ? count : 65535), kThreads, 0, stream>>>(sums, blocks, count);
  check_launch("squared norms of runs");
}

void launch_blocks(const CopyBlock* blocks, std::size_t count, BlockMode mode, cudaStream_t stream) {
  if (count == 0) return;
  blocks_kernel<<<unsigned(count < 65535 ? count : 65535), 128, 0, stream>>>(blocks, count, mode);
  check_launch("blocks");
}

void launch_fill(float* dst, float value, std::size_t n, cudaStream_t stream) {
  if (n == 0) return;
  fill_kernel<<<blocks_for(n), kThreads, 0, stream>>>(dst, value, n);
  check_launch("fill");
}

void launch_accumulate(float* dst, const float* src, std::size_t n, cudaStream_t stream) {
  launch_scaled_add(dst, 1.f, src, n, false, stream);
}

void launch_scale(float* y, float a, std::size_t n, cudaStream_t stream) {
  if (n == 0) return;
  scale_kernel<<<blocks_for(n), kThreads, 0, stream>>>(y, a, n);
  check_launch("scale");
}

void launch_squared_norm(double* result, const float* x, std::size_t n, cudaStream_t stream) {
  check_cuda(cudaMemsetAsync(result, 0, sizeof(double), stream), "squared norm");
  if (n == 0) return;
  squared_norm_kernel<<<blocks_for(n), kThreads, 0, stream>>>(result, x, n);
  check_launch("squared norm");
}

void launch_scaled_add(float* dst, float a, const float* src, std::size_t n, bool overwrite, cudaStream_t stream) {
  if (n == 0) return;
  scaled_add_kernel<<<blocks_for(n), kThreads, 0, stream>>>(dst, a, src, n, overwrite);
  check_launch("scaled add");
}

}  // namespace gpu
}  // namespace dynet
