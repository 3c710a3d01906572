#include "gpu/trainer_updates.h"


#include "gpu/launch.cuh"
#include "trainers/update_kernels.h"

namespace dynet {
namespace gpu {

namespace {

using update_rules::UpdateCall;

/// Calls launch(c), c the call with its rows in device memory, staged under the device's lock.
template <class Launch>
void with_rows_on_device(Device_GPU& gpu, const UpdateCall& call, Launch&& launch) {
  if (!call.rows) return launch(call);
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
  gpu.make_current();
  with_rows_on_device(gpu, call, [&](const UpdateCall& c) {
    update_kernel<<<blocks_for(c.size()), kThreads, 0, gpu.stream()>>>(rule, c);
  });
  check_launch("trainer update");
}

/// The block's reduction of v by op, returned to every thread of it; `shared` holds kThreads.
template <class T, class Op>
__device__ T block_reduce(T v, T* shared, Op op) {
  shared[threadIdx.x] = v;
  __syncthreads();
  for (unsigned half = kThreads / 2; half > 0; half /= 2) {
    if (threadIdx.x < half) shared[threadIdx.x] = op(shared[threadIdx.x], shared[threadIdx.x + half]);
    __syncthreads();
  }
  const T r = shared[0];
  __syncthreads();
  return r;
}

// As the CPU kernel: the log values, normalized shifted by their largest so that exp cannot
// overflow, the sum of exponentials in double.
__global__ void exponentiated_kernel(update_rules::ExponentiatedGradient rule, UpdateCall c) {
  __shared__ float top_of[kThreads];
  __shared__ double sum_of[kThreads];
  for (std::size_t k = blockIdx.x; k < c.blocks; k += gridDim.x) {
    const std::size_t base = c.at(k, 0);
    float* w = c.values + base;
    float top = -INFINITY;
    for (std::size_t e = threadIdx.x; e < c.n; e += kThreads) {
      w[e] = rule(w[e] * c.factor, c.grads[base + e], c.state, base + e);
      top = fmaxf(top, w[e]);
    }
    top = block_reduce(top, top_of, [](float a, float b) { return fmaxf(a, b); });
    double sum = 0;
    for (std::size_t e = threadIdx.x; e < c.n; e += kThreads) sum += expf(w[e] - top);
    sum = block_reduce(sum, sum_of, [](double a, double b) { return a + b; });
    const float log_z = top + static_cast<float>(log(sum));
    for (std::size_t e = threadIdx.x; e < c.n; e += kThreads) w[e] = expf(w[e] - log_z) / c.factor;
  }
}

void exponentiated(Device& d, const update_rules::ExponentiatedGradient& rule, const UpdateCall& call) {
  Device_GPU& gpu = static_cast<Device_GPU&>(d);
  const unsigned grid = static_cast<unsigned>(call.blocks < 65535 ? call.blocks : 65535);
  gpu.make_current();
  with_rows_on_device(gpu, call, [&](const UpdateCall& c) {
    exponentiated_kernel<<<grid, kThreads, 0, gpu.stream()>>>(rule, c);
  });
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
