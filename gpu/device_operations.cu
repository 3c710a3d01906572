#include "gpu/device_operations.h"

#include <cstdint>

#include "gpu/block_reduce.cuh"
#include "gpu/cuda_check.h"
#include "gpu/launch.cuh"

namespace dynet {
namespace gpu {

namespace {

__global__ void fill_kernel(float* dst, float value, std::size_t n) { DYBATCH_GRID_STRIDE(i, n) dst[i] = value; }

__global__ void scaled_add_kernel(float* dst, float a, const float* src, std::size_t n, bool overwrite) {
  DYBATCH_GRID_STRIDE(i, n) dst[i] = overwrite ? a * src[i] : dst[i] + a * src[i];
}

__global__ void scale_kernel(float* y, float a, std::size_t n) { DYBATCH_GRID_STRIDE(i, n) y[i] *= a; }

__device__ inline bool aligned16(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }

// Element e of a run by the block's mode.
__device__ inline void move_one(const CopyBlock& k, unsigned e, BlockMode mode) {
  if (mode == BlockMode::Copy)
    k.to[e] = k.from[e];
  else if (mode == BlockMode::Zero)
    k.to[e] = 0.f;
  else if (mode == BlockMode::Add)
    k.to[e] += k.from[e];
  else
    atomicAdd(k.to + e, k.from[e]);
}

// A block per run. Where both ends of a run are 16-byte aligned, Copy, Zero and Add move float4s
// (one 16-byte access per thread instead of four), then the last n % 4 floats one by one;
// AtomicAdd stays scalar. Runs longer than kRunPiece are split by Device_GPU::move.
__global__ void blocks_kernel(const CopyBlock* blocks, std::size_t count, BlockMode mode) {
  for (std::size_t b = blockIdx.x; b < count; b += gridDim.x) {
    const CopyBlock k = blocks[b];
    unsigned done = 0;
    if (mode != BlockMode::AtomicAdd && aligned16(k.to) && (mode == BlockMode::Zero || aligned16(k.from))) {
      const unsigned quads = k.n / 4;
      float4* to = reinterpret_cast<float4*>(k.to);
      const float4* from = reinterpret_cast<const float4*>(k.from);
      for (unsigned q = threadIdx.x; q < quads; q += blockDim.x) {
        if (mode == BlockMode::Copy) {
          to[q] = from[q];
        } else if (mode == BlockMode::Zero) {
          to[q] = make_float4(0.f, 0.f, 0.f, 0.f);
        } else {
          const float4 f = from[q];
          float4 t = to[q];
          t.x += f.x;
          t.y += f.y;
          t.z += f.z;
          t.w += f.w;
          to[q] = t;
        }
      }
      done = quads * 4;
    }
    for (unsigned e = done + threadIdx.x; e < k.n; e += blockDim.x) move_one(k, e, mode);
  }
}

// A block per run (a piece of at most kRunPiece floats, as Device_GPU splits them), summing in a
// fixed order: the same floats give the same bits on every run.
__global__ void block_squared_norms_kernel(double* sums, const CopyBlock* blocks, std::size_t count) {
  for (std::size_t b = blockIdx.x; b < count; b += gridDim.x) {
    const CopyBlock k = blocks[b];
    double s = 0;
    for (unsigned e = threadIdx.x; e < k.n; e += blockDim.x) s += double(k.from[e]) * k.from[e];
    s = block_reduce(s, Sum());
    if (threadIdx.x == 0) sums[b] = s;
  }
}

}  // namespace

void launch_block_squared_norms(double* sums, const CopyBlock* blocks, std::size_t count, cudaStream_t stream) {
  if (count == 0) return;
  block_squared_norms_kernel<<<grid_of(count), kThreads, 0, stream>>>(sums, blocks, count);
  check_launch("squared norms of runs");
}

void launch_blocks(const CopyBlock* blocks, std::size_t count, BlockMode mode, cudaStream_t stream) {
  if (count == 0) return;
  blocks_kernel<<<grid_of(count), kThreads, 0, stream>>>(blocks, count, mode);
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

void launch_scaled_add(float* dst, float a, const float* src, std::size_t n, bool overwrite, cudaStream_t stream) {
  if (n == 0) return;
  scaled_add_kernel<<<blocks_for(n), kThreads, 0, stream>>>(dst, a, src, n, overwrite);
  check_launch("scaled add");
}

}  // namespace gpu
}  // namespace dynet
