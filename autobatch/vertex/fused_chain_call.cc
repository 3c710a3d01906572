#include "autobatch/vertex/fused_chain_call.h"

namespace dynet {

void FusedChainCall::start(const vertex::FusedChain& chain, bool backward) {
  const std::size_t ops = chain.ops().size(), inputs = chain.reads().size();
  reads.resize(inputs);
  writes.resize(ops);
  data.resize(ops);
  if (!backward) return;
  read_grads.resize(inputs);
  write_grads.resize(ops);
  fresh_reads.resize(inputs);
  fresh_writes.resize(ops);
}

ChainRun FusedChainCall::run(std::uint32_t instances) const {
  ChainRun r;
  r.instances = instances;
  r.reads = reads.data();
  r.writes = writes.data();
  r.data = data.data();
  return r;
}

void FusedChainCall::forward(Device& device, const vertex::FusedChain& chain, std::uint32_t instances,
                             AlignedMemoryPool& scratch) {
  if (device.capabilities().chain_kernels) {
    device.run_chain_forward(chain.program(), run(instances));
    return;
  }
  float* tiles = scratch.allocate_array<float>(chain.scratch_floats());
  device.run_host_kernel("fused chain forward",
                         [&] { chain.run_forward(instances, reads.data(), writes.data(), tiles, data.data()); });
}

void FusedChainCall::backward(Device& device, const vertex::FusedChain& chain, std::uint32_t instances,
                              AlignedMemoryPool& scratch) {
  if (device.capabilities().chain_kernels) {
    ChainRun r = run(instances);
    r.read_grads = read_grads.data();
    r.write_grads = write_grads.data();
    r.fresh_reads = fresh_reads.data();
    r.fresh_writes = fresh_writes.data();
    device.run_chain_backward(chain.program(), r);
    return;
  }
  float* tiles = scratch.allocate_array<float>(chain.scratch_floats());
  device.run_host_kernel("fused chain backward", [&] {
    chain.run_backward(instances, reads.data(), read_grads.data(), writes.data(), write_grads.data(), tiles,
                       data.data(), fresh_reads.data(), fresh_writes.data());
  });
}

}  // namespace dynet
