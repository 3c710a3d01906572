#include "dynet_core/device/device.h"

#include "dynet_core/device/shared_host_blocks.h"
#include "dynet_core/device/thread_pool.h"
#include "dynet_core/execution_engine.h"

#include <algorithm>
#include <cstdlib>
#include <sstream>
#include <stdexcept>
#include <string>

namespace dynet {

void Device::run_chain_forward(const ChainProgram&, const ChainRun&) {
  throw std::logic_error("Device " + name + " runs no fused chains (it has no chain kernels)");
}

void Device::run_chain_backward(const ChainProgram&, const ChainRun&) {
  throw std::logic_error("Device " + name + " runs no fused chains (it has no chain kernels)");
}

void Device::check_device_memory(const void*, std::size_t, const char*) const {}

void Device::check_call(const OpDef& op, const OpCall& c, bool backward) const {
  const auto check = [&](const Tensor& t) {
    if (t.v) check_device_memory(t.v, t.d.size() * sizeof(float), op.name);
  };
  check(c.y);
  for (unsigned i = 0; i < c.nargs; ++i) check(c.xs[i]);
  if (!backward) return;
  check(c.dy);
  check(c.dx);
}

void Device::host_kernel_refused(const char* what) const {
  throw std::logic_error(std::string(what) + ": a host loop cannot run as a kernel of device " + name +
                         ", whose kernels are not host code");
}

GraphMemory::GraphMemory(const MemorySizes& sizes, Device& device)
    : forward("forward (FXS)", sizes.forward, &device),
      backward("backward (DEDFS)", sizes.backward, &device),
      scratch("scratch (SCS)", sizes.scratch, &device),
      arena("graph arena", std::size_t(1) << 20) {}

GraphMemory::~GraphMemory() {
  for (Node* chunk : node_chunks) std::free(chunk);
}

void GraphMemory::reset() {
  forward.reset();
  backward.reset();
  scratch.reset();
  arena.reset();
}

void GraphMemory::set_debug(bool on) {
  forward.set_debug(on);
  backward.set_debug(on);
  scratch.set_debug(on);
}

Device::Device(DeviceType t, std::string n, const DeviceCapabilities& capabilities, const MemorySizes& sizes,
               bool debug_memory, bool guarded, bool entered)
    : type(t),
      name(std::move(n)),
      capabilities_(capabilities),
      kernels_(kernel_table(t)),
      sizes_(sizes),
      debug_memory_(debug_memory),
      guarded_(guarded),
      entered_(guarded || entered) {}

Device::~Device() = default;

void Device::release_pools() {
  std::lock_guard<std::mutex> lock(mutex_);
  free_graph_memory_.clear();
  all_graph_memory_.clear();
  parameters_.reset();
  parent_parameters_.reset();
}

float* Device::allocate_parameter_floats(std::size_t n) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!parameters_) {
    BlockSource* source = this;
    if (parameters_shared_ && !new_parameters_private_) source = &SharedHostBlocks::instance();
    parameters_ = std::make_unique<AlignedMemoryPool>("parameters (PS)", sizes_.parameters, source);
  }
  return parameters_->allocate_array<float>(n);
}

void Device::share_parameters() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (type != DeviceType::CPU || guarded_)
    throw std::invalid_argument("shared parameters (initialize's shared_parameters): " + name +
                                " has no memory that forked processes share; use the CPU");
  if (parameters_ && !parameters_shared_)
    throw std::logic_error("shared parameters: parameters were made on " + name + " before sharing was asked for");
  parameters_shared_ = true;
}

void Device::keep_new_parameters_private() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!parameters_shared_ || new_parameters_private_) return;
  new_parameters_private_ = true;
  parent_parameters_ = std::move(parameters_);
}

std::size_t Device::parameter_bytes_used() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return parameters_ ? parameters_->used() : 0;
}

std::size_t Device::parameter_bytes_high_water() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return parameters_ ? parameters_->high_water() : 0;
}

GraphMemory* Device::acquire_graph_memory() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!free_graph_memory_.empty()) {
    GraphMemory* m = free_graph_memory_.back();
    free_graph_memory_.pop_back();
    return m;
  }
  all_graph_memory_.push_back(std::make_unique<GraphMemory>(sizes_, *this));
  all_graph_memory_.back()->set_debug(debug_memory_);
  return all_graph_memory_.back().get();
}

void Device::release_graph_memory(GraphMemory* m) {
  m->reset();
  std::lock_guard<std::mutex> lock(mutex_);
  free_graph_memory_.push_back(m);
}

MemorySizes parse_memory_descriptor(const std::string& descriptor) {
  std::vector<std::size_t> mb;
  std::stringstream ss(descriptor);
  std::string part;
  while (std::getline(ss, part, ',')) {
    std::size_t pos = 0;
    unsigned long long v = 0;
    try {
      v = std::stoull(part, &pos);
    } catch (const std::exception&) {
      pos = 0;
    }
    if (pos == 0 || pos != part.size() || v == 0 || part[0] == '-')
      throw std::invalid_argument("--dynet-mem: '" + descriptor +
                                  "' is not valid; expected a positive size in MB (\"512\") or "
                                  "three or four comma-separated sizes (\"256,256,512\")");
    mb.push_back(static_cast<std::size_t>(v));
  }
  const std::size_t MB = std::size_t(1) << 20;
  if (mb.size() == 1) {
    const std::size_t each = std::max<std::size_t>(1, mb[0] / 4) * MB;
    return {each, each, each, each};
  }
  if (mb.size() == 3) return {mb[0] * MB, mb[1] * MB, mb[2] * MB, mb[0] * MB};
  if (mb.size() == 4) return {mb[0] * MB, mb[1] * MB, mb[2] * MB, mb[3] * MB};
  throw std::invalid_argument("--dynet-mem: '" + descriptor + "' has " + std::to_string(mb.size()) +
                              " sizes; expected 1, 3 (forward,backward,parameters) or 4 "
                              "(forward,backward,parameters,scratch)");
}

}  // namespace dynet
