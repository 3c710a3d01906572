#include "gpu/trainer_updates.h"

#include "gpu/launch.cuh"

namespace dynet {
namespace gpu {

namespace {

template <class Rule>
__global__ void update_kernel(Rule rule, float* values, const float* grads, float* state, std::size_t stride,
                              std::size_t n) {
  DYBATCH_GRID_STRIDE(i, n) rule(values[i], grads[i], state, i, stride);
}

}  // namespace

template <class Rule>
void update(const Rule& rule, float* values, const float* grads, float* state, std::size_t stride, std::size_t n,
            cudaStream_t stream) {
  if (n == 0) return;
  update_kernel<<<blocks_for(n), kThreads, 0, stream>>>(rule, values, grads, state, stride, n);
  check_launch("trainer update");
}

template void update(const update_rules::Sgd&, float*, const float*, float*, std::size_t, std::size_t, cudaStream_t);
template void update(const update_rules::Momentum&, float*, const float*, float*, std::size_t, std::size_t,
                     cudaStream_t);
template void update(const update_rules::Adagrad&, float*, const float*, float*, std::size_t, std::size_t,
                     cudaStream_t);
template void update(const update_rules::Adadelta&, float*, const float*, float*, std::size_t, std::size_t,
                     cudaStream_t);
template void update(const update_rules::RMSProp&, float*, const float*, float*, std::size_t, std::size_t,
                     cudaStream_t);
template void update(const update_rules::Adam&, float*, const float*, float*, std::size_t, std::size_t, cudaStream_t);

}  // namespace gpu
}  // namespace dynet
