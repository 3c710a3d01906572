// Fused chains of elementwise ops on the GPU: one thread per element of the chain's iteration
// space runs every step there (element_chain.h), so a chain is one launch forward and one
// backward, whatever its length.

#include "gpu/device_gpu.h"
#include "gpu/element_chain.h"
#include "gpu/launch.cuh"

namespace dynet {

namespace {

__global__ void chain_forward_kernel(gpu::ElementChain c) {
  DYBATCH_GRID_STRIDE(i, c.total) gpu::chain_forward_element(c, i);
}

__global__ void chain_backward_kernel(gpu::ElementChain c) {
  DYBATCH_GRID_STRIDE(i, c.total) gpu::chain_backward_element(c, i);
}

}  // namespace

void Device_GPU::run_chain_forward(const ChainProgram& chain, const ChainRun& run) {
  make_current();
  const std::lock_guard<std::mutex> lock(staging_mutex_);
  const gpu::ElementChain c = stage_chain(chain, run);
  chain_forward_kernel<<<gpu::blocks_for(c.total), gpu::kThreads, 0, stream_>>>(c);
  gpu::check_launch("fused chain forward");
}

void Device_GPU::run_chain_backward(const ChainProgram& chain, const ChainRun& run) {
  make_current();
  const std::lock_guard<std::mutex> lock(staging_mutex_);
  const gpu::ElementChain c = stage_chain(chain, run);
  chain_backward_kernel<<<gpu::blocks_for(c.total), gpu::kThreads, 0, stream_>>>(c);
  gpu::check_launch("fused chain backward");
}

}  // namespace dynet
