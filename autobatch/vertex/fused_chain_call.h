#pragma once
// One call of a fused chain (fused_chain.h) over the instances of a task: where each of its
// reads, writes and op data lies and, backward, its gradients and which of those the chain may
// write over, as the engine fills them in from its record of groups; and the call itself, as the
// device's chain kernel (Device::run_chain_forward / backward, chain_program.h) where it has one,
// else as a host loop over tiles among the device's host kernels. The lists keep their memory
// from call to call.

#include <cstdint>
#include <vector>

#include "autobatch/vertex/fused_chain.h"
#include "dynet_core/device/device.h"

namespace dynet {

class FusedChainCall {
 public:
  /// Whether `device` runs a fused chain in one call: as its chain kernel, or as a host loop
  /// where its kernels are host code.
  static bool runs_on(const Device& device) {
    return device.capabilities().chain_kernels || device.capabilities().host_kernels;
  }

  /// Sizes the lists for `chain`: forward ones, and with `backward` the gradient ones too.
  void start(const vertex::FusedChain& chain, bool backward);
  /// Computes the chain's writes over `instances`; scratch for the host loop comes from `scratch`.
  void forward(Device& device, const vertex::FusedChain& chain, std::uint32_t instances, AlignedMemoryPool& scratch);
  /// Passes the write gradients back into the read gradients (null ones are not needed).
  void backward(Device& device, const vertex::FusedChain& chain, std::uint32_t instances, AlignedMemoryPool& scratch);

  std::vector<const float*> reads;
  std::vector<float*> writes;
  std::vector<const void*> data;  ///< each op's
  std::vector<float*> read_grads, write_grads;
  /// Which gradient blocks the chain writes over instead of adding to: its reads', its writes'.
  std::vector<std::uint8_t> fresh_reads, fresh_writes;

 private:
  ChainRun run(std::uint32_t instances) const;
};

}  // namespace dynet
