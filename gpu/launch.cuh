#pragma once
// Launch shapes and the per-call context every kernel of gpu/ uses: the device a call runs on
// (its stream, cuBLAS handle and scratch), read from the output tensor.

#include <cuda_runtime.h>

#include <cstddef>

#include "dynet_core/op_def.h"
#include "gpu/block_reduce.cuh"
#include "gpu/cuda_check.h"
#include "gpu/device_gpu.h"

namespace dynet {
namespace gpu {

constexpr unsigned kThreads = 256;
/// Enough blocks for n elements with grid-stride loops; capped so that huge tensors loop instead.
inline unsigned blocks_for(std::size_t n) {
  const std::size_t b = (n + kThreads - 1) / kThreads;
  return static_cast<unsigned>(b < 65535 ? (b ? b : 1) : 65535);
}

/// A grid of one block per item, capped so that more items loop (BlockTeam).
inline unsigned grid_of(std::size_t items) {
  return static_cast<unsigned>(items < 65535 ? (items ? items : 1) : 65535);
}

/// Items (columns, output elements) of up to kWarpItem elements get a warp each, eight to a block:
/// a warp's lanes then hold at most 8 elements each and a short column wastes no block. Longer
/// items get a block of kThreads, so that a 10,000-word output layer is read by 256 threads.
constexpr std::size_t kWarpItem = 256;

/// Launches by_warp (the kernel over WarpTeam) or by_block (over BlockTeam) for `items` items of
/// `len` elements, as kWarpItem decides.
template <class... P, class... A>
void launch_teams(const char* what, std::size_t items, std::size_t len, cudaStream_t stream, void (*by_warp)(P...),
                  void (*by_block)(P...), const A&... args) {
  if (items == 0) return;
  if (len <= kWarpItem)
    by_warp<<<blocks_for(items * kWarp), kThreads, 0, stream>>>(args...);
  else
    by_block<<<grid_of(items), kThreads, 0, stream>>>(args...);
  check_cuda(cudaGetLastError(), what);
}

/// Turns a failed launch (bad configuration, no kernel image for this GPU) into an exception.
inline void check_launch(const char* what) { check_cuda(cudaGetLastError(), what); }

inline Device_GPU& device_of(const OpCall& c) { return *static_cast<Device_GPU*>(c.y.device); }
inline cudaStream_t stream_of(const OpCall& c) { return device_of(c).stream(); }
/// A host array copied to device scratch, for kernels that read per-node op data (indices).
template <class T>
const T* to_scratch(const OpCall& c, const T* host, std::size_t n) {
  T* d = c.scratch->allocate_array<T>(n ? n : 1);
  check_cuda(cudaMemcpyAsync(d, host, n * sizeof(T), cudaMemcpyHostToDevice, stream_of(c)), "to_scratch");
  return d;
}

/// Element e of batch element b of a tensor of per_batch elements that may broadcast its batch.
__device__ inline std::size_t batched(unsigned bd, std::size_t per_batch, std::size_t b, std::size_t e) {
  return (bd == 1 ? 0 : b * per_batch) + e;
}

#define DYBATCH_GRID_STRIDE(i, n)                                                   \
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < (n); \
       i += std::size_t(blockDim.x) * gridDim.x)

}  // namespace gpu
}  // namespace dynet
