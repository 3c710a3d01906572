#pragma once
// Reductions inside a warp and inside a thread block, in a fixed order: the same inputs give the
// same bits on every run (no atomics), and every thread of the warp or block gets the result.
// Teams: a kernel that reduces many items (columns, output elements) gives each item to a team
// of threads — a warp when items are short, the whole block when they are long — and is written
// once over the Team type.

#include <math.h>

#include <cstddef>

namespace dynet {
namespace gpu {

constexpr unsigned kWarp = 32;

/// A value and where it was found, for arg-max style reductions (the first place wins ties).
struct Found {
  float v;
  unsigned at;
};

__device__ inline float shuffle_xor(float v, unsigned lane_mask) { return __shfl_xor_sync(0xffffffffu, v, lane_mask); }
__device__ inline double shuffle_xor(double v, unsigned lane_mask) {
  return __shfl_xor_sync(0xffffffffu, v, lane_mask);
}
__device__ inline Found shuffle_xor(Found f, unsigned lane_mask) {
  return {__shfl_xor_sync(0xffffffffu, f.v, lane_mask), __shfl_xor_sync(0xffffffffu, f.at, lane_mask)};
}

struct Sum {
  template <class T>
  __device__ T operator()(T a, T b) const {
    return a + b;
  }
};
struct Max {
  __device__ float operator()(float a, float b) const { return fmaxf(a, b); }
};
/// The larger value (Larger = true) or the smaller one; on a tie the one found first.
template <bool Larger>
struct Extreme {
  __device__ Found operator()(Found a, Found b) const {
    const bool b_wins = Larger ? b.v > a.v : b.v < a.v;
    return b_wins || (b.v == a.v && b.at < a.at) ? b : a;
  }
};

/// The reduction by `op` of v over the 32 lanes of the warp, in every lane. A butterfly: lanes
/// exchange with lane ^ 16, ^ 8, ... so each lane combines the same pairs in the same tree; op
/// must be commutative (a + b and b + a are the same float), which makes every lane's bits equal.
/// The whole warp must call it (the block's size is a multiple of 32).
template <class T, class Op>
__device__ T warp_reduce(T v, Op op) {
  for (unsigned mask = kWarp / 2; mask > 0; mask /= 2) v = op(v, shuffle_xor(v, mask));
  return v;
}

/// The reduction by `op` of v over the thread block, in every thread: warps reduce, then every
/// thread combines the warps' totals in warp order. Every thread of the block must call it, in
/// uniform control flow (it synchronizes the block); blockDim.x is a multiple of 32, at most 1024.
template <class T, class Op>
__device__ T block_reduce(T v, Op op) {
  __shared__ T totals[kWarp];
  v = warp_reduce(v, op);
  if (threadIdx.x % kWarp == 0) totals[threadIdx.x / kWarp] = v;
  __syncthreads();
  v = totals[0];
  for (unsigned w = 1; w < blockDim.x / kWarp; ++w) v = op(v, totals[w]);
  __syncthreads();  // totals is reused by the next call
  return v;
}

/// A warp per item: items first(), first() + stride(), ...; a team's threads are its lanes
/// rank() < size().
struct WarpTeam {
  __device__ std::size_t first() const { return (blockIdx.x * std::size_t(blockDim.x) + threadIdx.x) / kWarp; }
  __device__ std::size_t stride() const { return std::size_t(gridDim.x) * blockDim.x / kWarp; }
  __device__ unsigned rank() const { return threadIdx.x % kWarp; }
  __device__ unsigned size() const { return kWarp; }
  template <class T, class Op>
  __device__ T reduce(T v, Op op) const {
    return warp_reduce(v, op);
  }
  /// Makes the team's writes to global memory visible to the whole team.
  __device__ void sync() const { __syncwarp(); }
};

/// The thread block per item.
struct BlockTeam {
  __device__ std::size_t first() const { return blockIdx.x; }
  __device__ std::size_t stride() const { return gridDim.x; }
  __device__ unsigned rank() const { return threadIdx.x; }
  __device__ unsigned size() const { return blockDim.x; }
  template <class T, class Op>
  __device__ T reduce(T v, Op op) const {
    return block_reduce(v, op);
  }
  __device__ void sync() const { __syncthreads(); }
};

}  // namespace gpu
}  // namespace dynet
