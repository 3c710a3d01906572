#include "gpu/trainer_updates.h"


#include "gpu/launch.cuh"
#include "trainers/update_kernels.h"

namespace dynet {
namespace gpu {

namespace {

using update_rules::UpdateCall;

/// The call with its rows in device memory.
UpdateCall on_device(Device_GPU& gpu, const UpdateCall& call) {
  UpdateCall c = call;
  if (c.rows) c.rows = gpu.stage_indices(call.rows, call.blocks);
  return c;
}

template <class Rule>
__global__ void update_kernel(Rule rule, UpdateCall c) {
  DYBATCH_GRID_STRIDE(k, c.size()) update_rules::apply_at(rule, c, k);
}

template <class Rule>
void update(Device& d, const Rule& rule, const UpdateCall& call) {
  Device_GPU& gpu = static_cast<Device_GPU&>(d);
  update_kernel<<<blocks_for(call.size()), kThreads, 0, gpu.stream()>>>(rule, on_device(gpu, call));
  check_launch("trainer update");
}

// As the CPU kernel: the log values, normalized shifted by their largest so that exp cannot
// overflow, the sum of exponentials in double.
__global__ void exponentiated_kernel(update_rules::ExponentiatedGradient rule, UpdateCall c) {
  for (std::size_t k = blockIdx.x; k < c.blocks; k += gridDim.x) {
    const std::size_t base = c.at(k, 0);
    float* w = c.values + base;
    float top = -INFINITY;
    for (std::size_t e = threadIdx.x; e < c.n; e += kThreads) {
      w[e] = rule(w[e] * c.factor, c.grads[base + e], c.state, base + e);
      top = fmaxf(top, w[e]);
    }
    top = block_reduce(top, Max());
    double sum = 0;
    for (std::size_t e = threadIdx.x; e < c.n; e += kThreads) sum += expf(w[e] - top);
    sum = block_reduce(sum, Sum());
    const float log_z = top + static_cast<float>(log(sum));
    for (std::size_t e = threadIdx.x; e < c.n; e += kThreads) w[e] = expf(w[e] - log_z) / c.factor;
  }
}

void exponentiated(Device& d, const update_rules::ExponentiatedGradient& rule, const UpdateCall& call) {
  Device_GPU& gpu = static_cast<Device_GPU&>(d);
  const unsigned grid = static_cast<unsigned>(call.blocks < 65535 ? call.blocks : 65535);
  exponentiated_kernel<<<grid, kThreads, 0, gpu.stream()>>>(rule, on_device(gpu, call));
  check_launch("EG trainer update");
}

}  // namespace

void install_update_kernels() {
  update_kernels(DeviceType::GPU) =
      UpdateKernels{update<update_rules::Sgd>,      update<update_rules::Momentum>, update<update_rules::Adagrad>,
                    update<update_rules::Adadelta>, update<update_rules::RMSProp>,  update<update_rules::Adam>,
                    exponentiated};
  check_update_kernels(DeviceType::GPU, "CUDA");
}

}  // namespace gpu
}  // namespace dynet
