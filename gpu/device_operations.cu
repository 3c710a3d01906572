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

__global__ void blocks_kernel(const CopyBlock* blocks, std::size_t count, BlockMode mode) {
  for (std::size_t b = blockIdx.x; b < count; b += gridDim.x) {
    const CopyBlock k = blocks[b];
    for (unsigned e = threadIdx.x; e < k.n; e += blockDim.x) {
      if (mode == BlockMode::Copy)
        k.to[e] = k.from[e];
      else if (mode == BlockMode::Add)
        k.to[e] += k.from[e];
      else
        atomicAdd(k.to + e, k.from[e]);
    }
  }
}

}  // namespace

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

void launch_scaled_add(float* dst, float a, const float* src, std::size_t n, bool overwrite, cudaStream_t stream) {
  if (n == 0) return;
  scaled_add_kernel<<<blocks_for(n), kThreads, 0, stream>>>(dst, a, src, n, overwrite);
  check_launch("scaled add");
}

}  // namespace gpu
}  // namespace dynet
