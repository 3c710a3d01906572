#pragma once
// A CPU device that runs fused chains as the GPU backend does: the engine hands each chain to
// Device::run_chain_forward / run_chain_backward, and the device runs it element by element with
// the GPU kernel's own per-element code (gpu/element_chain.h), here in host loops. Graphs and
// parameters on it exercise the engine's path for chain kernels on machines without a GPU. Its
// capabilities are the caller's, so that a test can turn each one off: by default it has chain
// kernels and costly calls, as a GPU has, and its kernels stay host code.

#include <cstdint>
#include <vector>

#include "dynet_core/device/device.h"
#include "gpu/element_chain.h"

namespace test_support {

class ElementChainDevice : public dynet::Device_CPU {
 public:
  explicit ElementChainDevice(const dynet::DeviceCapabilities& capabilities = {true, true, true})
      : Device_CPU(dynet::MemorySizes{1 << 20, 1 << 20, 1 << 20, 1 << 20}, true) {
    capabilities_ = capabilities;
  }
  void run_chain_forward(const dynet::ChainProgram& chain, const dynet::ChainRun& run) override {
    for_each_element(chain, run,
                     [](const dynet::gpu::ElementChain& c, std::size_t i) { dynet::gpu::chain_forward_element(c, i); });
    ++forward_chains;
  }
  void run_chain_backward(const dynet::ChainProgram& chain, const dynet::ChainRun& run) override {
    for_each_element(
        chain, run, [](const dynet::gpu::ElementChain& c, std::size_t i) { dynet::gpu::chain_backward_element(c, i); });
    ++backward_chains;
  }

  std::uint64_t forward_chains = 0, backward_chains = 0;

 private:
  template <class Element>
  void for_each_element(const dynet::ChainProgram& chain, const dynet::ChainRun& run, Element&& element) {
    block_.resize(dynet::gpu::element_chain_bytes(chain));
    const dynet::gpu::ElementChain c =
        dynet::gpu::pack_element_chain(chain, run, block_.data(), reinterpret_cast<std::uintptr_t>(block_.data()));
    for (std::size_t i = 0; i < c.total; ++i) element(c, i);
  }

  std::vector<unsigned char> block_;
};

}  // namespace test_support
