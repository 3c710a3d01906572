#include "trainers/update_kernels.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace dynet {

namespace {

using update_rules::UpdateCall;

// The rule and the call are copied: stores through the value pointers could alias the caller's
// copies as far as the compiler knows, and it would then reload every setting per value and not
// vectorize the loop (Adam ran scalar, at ten times Eigen's instructions).
template <bool kScaled, class Rule>
void cpu_update_blocks(const Rule& caller_rule, const UpdateCall& caller_call) {
  const Rule rule = caller_rule;
  const UpdateCall c = caller_call;
  for (std::size_t k = 0; k < c.blocks; ++k) {
    const std::size_t first = c.at(k, 0), end = first + c.n;
    for (std::size_t i = first; i < end; ++i) update_rules::apply_index<kScaled>(rule, c, i);
  }
}

// Block by block, so that no index needs a division, and without the weight-decay factor's
// multiply and divide per value unless it differs from 1.
template <class Rule>
void cpu_update(Device& device, const Rule& rule, const UpdateCall& c) {
  device.run_host_kernel("trainer update", [&] {
    if (c.factor == 1.f)
      cpu_update_blocks<false>(rule, c);
    else
      cpu_update_blocks<true>(rule, c);
  });
}

// Each block is normalized in the log domain, shifted by its largest value so that exp cannot
// overflow.
void cpu_exponentiated_blocks(const update_rules::ExponentiatedGradient& rule, const UpdateCall& c) {
  for (std::size_t k = 0; k < c.blocks; ++k) {
    const std::size_t base = c.at(k, 0);
    float* w = c.values + base;
    float top = -std::numeric_limits<float>::infinity();
    for (std::size_t e = 0; e < c.n; ++e) {
      w[e] = rule(w[e] * c.factor, c.grads[base + e], c.state, base + e);
      top = std::max(top, w[e]);
    }
    double sum = 0;
    for (std::size_t e = 0; e < c.n; ++e) sum += std::exp(w[e] - top);
    const float log_z = top + static_cast<float>(std::log(sum));
    for (std::size_t e = 0; e < c.n; ++e) w[e] = std::exp(w[e] - log_z) / c.factor;
  }
}

void cpu_exponentiated(Device& device, const update_rules::ExponentiatedGradient& rule, const UpdateCall& c) {
  device.run_host_kernel("EG trainer update", [&] { cpu_exponentiated_blocks(rule, c); });
}

UpdateKernels cpu_kernels() {
  return UpdateKernels{cpu_update<update_rules::Sgd>,
                       cpu_update<update_rules::Momentum>,
                       cpu_update<update_rules::Adagrad>,
                       cpu_update<update_rules::Adadelta>,
                       cpu_update<update_rules::RMSProp>,
                       cpu_update<update_rules::Adam>,
                       cpu_exponentiated};
}

}  // namespace

UpdateKernels& update_kernels(DeviceType type) {
  static UpdateKernels cpu = cpu_kernels(), gpu{};
  return type == DeviceType::CPU ? cpu : gpu;
}

void check_update_kernels(DeviceType type, const char* backend) {
  unsigned missing = 0;
  std::apply([&](auto... kernel) { ((missing += kernel == nullptr), ...); }, update_kernels(type));
  if (missing)
    throw std::logic_error(std::string("device backend '") + backend + "' lacks " + std::to_string(missing) + " of " +
                           std::to_string(std::tuple_size<UpdateKernels>::value) + " trainer update kernels");
}

}  // namespace dynet
