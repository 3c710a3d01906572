#pragma once
// Update kernels per device type, as ops have kernels per device type (dynet_core/device/kernel_table.h):
// a trainer launches its rule (trainers/update_rules.h) through the device of the parameter, so the
// same code updates parameters on the CPU, on the guarded CPU device of the tests and on a GPU.
// The CPU table is filled here; a GPU backend sets its own at start-up and checks it.

#include <stdexcept>
#include <string>
#include <tuple>

#include "dynet_core/device/device.h"
#include "trainers/update_rules.h"

namespace dynet {

template <class Rule>
using UpdateKernel = void (*)(Device& device, const Rule& rule, const update_rules::UpdateCall& call);

/// One kernel per rule; EG's normalizes every block of its call.
using UpdateKernels = std::tuple<UpdateKernel<update_rules::Sgd>, UpdateKernel<update_rules::Momentum>,
                                 UpdateKernel<update_rules::Adagrad>, UpdateKernel<update_rules::Adadelta>,
                                 UpdateKernel<update_rules::RMSProp>, UpdateKernel<update_rules::Adam>,
                                 UpdateKernel<update_rules::ExponentiatedGradient>>;

/// The update kernels of devices of `type`; the CPU's are filled, any other starts empty.
UpdateKernels& update_kernels(DeviceType type);
/// Throws std::logic_error naming `backend` and how many of its update kernels are missing.
void check_update_kernels(DeviceType type, const char* backend);

/// Runs `rule` over `call` on `device`, as its kernel (the CPU's run as host kernels,
/// Device::run_host_kernel).
template <class Rule>
void launch_update(Device& device, const Rule& rule, const update_rules::UpdateCall& call) {
  if (call.size() == 0) return;
  std::get<UpdateKernel<Rule>>(update_kernels(device.type))(device, rule, call);
}

}  // namespace dynet
