#pragma once
// The trainers' update rules (trainers/update_rules.h) on a GPU: one thread per value, the same
// scalar rule the CPU loop applies. All pointers are device memory; the launch goes on `stream`.

#include <cuda_runtime_api.h>

#include <cstddef>

#include "trainers/update_rules.h"

namespace dynet {
namespace gpu {

template <class Rule>
void update(const Rule& rule, float* values, const float* grads, float* state, std::size_t stride, std::size_t n,
            cudaStream_t stream);

}  // namespace gpu
}  // namespace dynet
