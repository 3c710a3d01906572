#include "gpu/trainer_updates.h"

#include "gpu/launch.cuh"
#include "trainers/update_kernels.h"

namespace dynet {
namespace gpu {

namespace {

using update_rules::UpdateCall;

/// Calls launch(c) on the GPU made current, c the call with its rows in device memory, staged under
/// the device's lock.
template <class Launch>
void with_rows_on_device(Device_GPU& gpu, const UpdateCall& call, Launch&& launch) {
  if (!call.rows) {
    gpu.make_current();
    return launch(call);
  }
  gpu.launch_with_indices(call.rows, call.blocks, [&](const unsigned* rows) {
    UpdateCall c = call;
    c.rows = rows;
    launch(c);
  });
}

template <class Rule>
__global__ void update_kernel(Rule rule, UpdateCall c) {
  DYBATCH_GRID_STRIDE(k, c.size()) update_rules::apply_at(rule, c, k);
}

template <class Rule>
void update(Device& d, const Rule& rule, const UpdateCall& call) {
  Device_GPU& gpu = static_cast<Device_GPU&>(d);
  with_rows_on_device(gpu, call, [&](const UpdateCall& c) {
    update_kernel<<<blocks_for(c.size()), kThreads, 0, gpu.stream()>>>(rule, c);
  });
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

// A dense update (one block of values, the whole parameter) over many thread blocks: the rule and
// the blocks' maxima, the sum of exponentials in blocks' partials, then the normalization; each
// kernel combines the partials in the same fixed order, so every thread block sees the same
// maximum and sum, on every run. The partials live in module globals (one copy per GPU): updates
// of one GPU run one after another on its device's stream.
constexpr unsigned kDenseBlocks = 1024;
__device__ float dense_top[kDenseBlocks];
__device__ double dense_sum[kDenseBlocks];

/// The maximum of dense_top[0, blocks) in every thread of the block.
__device__ float dense_top_of(unsigned blocks) {
  float top = -INFINITY;
  for (unsigned b = threadIdx.x; b < blocks; b += blockDim.x) top = fmaxf(top, dense_top[b]);
  return block_reduce(top, Max());
}

__global__ void dense_rule_kernel(update_rules::ExponentiatedGradient rule, UpdateCall c) {
  const std::size_t base = c.at(0, 0);
  float* w = c.values + base;
  float top = -INFINITY;
  DYBATCH_GRID_STRIDE(e, c.n) {
    w[e] = rule(w[e] * c.factor, c.grads[base + e], c.state, base + e);
    top = fmaxf(top, w[e]);
  }
  top = block_reduce(top, Max());
  if (threadIdx.x == 0) dense_top[blockIdx.x] = top;
}

__global__ void dense_sum_kernel(UpdateCall c) {
  const float top = dense_top_of(gridDim.x);
  const float* w = c.values + c.at(0, 0);
  double sum = 0;
  DYBATCH_GRID_STRIDE(e, c.n) sum += expf(w[e] - top);
  sum = block_reduce(sum, Sum());
  if (threadIdx.x == 0) dense_sum[blockIdx.x] = sum;
}

__global__ void dense_normalize_kernel(UpdateCall c) {
  const float top = dense_top_of(gridDim.x);
  double sum = 0;
  for (unsigned b = threadIdx.x; b < gridDim.x; b += blockDim.x) sum += dense_sum[b];
  sum = block_reduce(sum, Sum());
  const float log_z = top + static_cast<float>(log(sum));
  float* w = c.values + c.at(0, 0);
  DYBATCH_GRID_STRIDE(e, c.n) w[e] = expf(w[e] - log_z) / c.factor;
}

void exponentiated(Device& d, const update_rules::ExponentiatedGradient& rule, const UpdateCall& call) {
  Device_GPU& gpu = static_cast<Device_GPU&>(d);
  with_rows_on_device(gpu, call, [&](const UpdateCall& c) {
    const std::size_t dense_grid = (c.n + 8 * kThreads - 1) / (8 * kThreads);
    if (c.blocks == 1 && dense_grid > 1) {
      // At least 8 values a thread, so that the three passes' extra reads of partials stay small.
      const unsigned grid = static_cast<unsigned>(dense_grid < kDenseBlocks ? dense_grid : kDenseBlocks);
      dense_rule_kernel<<<grid, kThreads, 0, gpu.stream()>>>(rule, c);
      dense_sum_kernel<<<grid, kThreads, 0, gpu.stream()>>>(c);
      dense_normalize_kernel<<<grid, kThreads, 0, gpu.stream()>>>(c);
    } else {
      exponentiated_kernel<<<grid_of(c.blocks), kThreads, 0, gpu.stream()>>>(rule, c);
    }
  });
  check_launch("EG trainer update");
}

}  // namespace

void install_update_kernels() {
  update_kernels(DeviceType::GPU) = UpdateKernels{update<update_rules::Sgd>,
                                                  update<update_rules::Momentum>,
                                                  update<update_rules::Adagrad>,
                                                  update<update_rules::Adadelta>,
                                                  update<update_rules::RMSProp>,
                                                  update<update_rules::Adam>,
                                                  exponentiated};
  check_update_kernels(DeviceType::GPU, "CUDA");
}

}  // namespace gpu
}  // namespace dynet
