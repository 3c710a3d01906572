#pragma once
// The kernels behind Device_GPU's device operations (device_operations.cu); every pointer is
// device memory, every launch goes on `stream`.

#include <cuda_runtime_api.h>

#include <cstddef>

namespace dynet {
namespace gpu {

/// A run of n floats that one launch of launch_blocks moves from `from` to `to`.
struct CopyBlock {
  const float* from;
  float* to;
  unsigned n;
};
/// Copy overwrites; Add adds, for runs that write disjoint places; AtomicAdd adds where runs may
/// overlap (a row picked twice, a broadcast argument's gradient); Zero clears `to` (`from` unused).
enum class BlockMode { Copy, Add, AtomicAdd, Zero };
/// The longest run one thread block of launch_blocks or launch_block_squared_norms reads; Device_GPU
/// splits longer runs, so that a large one spreads over the multiprocessors instead of occupying one.
constexpr unsigned kRunPiece = 8192;
/// Moves every run of `blocks` (a device array) in one launch: a thread block of 256 threads per
/// run, moving float4s where the run's two ends are 16-byte aligned.
void launch_blocks(const CopyBlock* blocks, std::size_t count, BlockMode mode, cudaStream_t stream);
/// sums[k] = sum of the squares of blocks[k]'s `from` floats, in double, for every k, in one
/// launch: a thread block per run, each summing in a fixed order (the same result on every run).
void launch_block_squared_norms(double* sums, const CopyBlock* blocks, std::size_t count, cudaStream_t stream);

void launch_fill(float* dst, float value, std::size_t n, cudaStream_t stream);
void launch_accumulate(float* dst, const float* src, std::size_t n, cudaStream_t stream);
void launch_scale(float* y, float a, std::size_t n, cudaStream_t stream);
/// dst (+)= a * src: overwriting when `overwrite`, adding otherwise.
void launch_scaled_add(float* dst, float a, const float* src, std::size_t n, bool overwrite, cudaStream_t stream);

}  // namespace gpu
}  // namespace dynet
