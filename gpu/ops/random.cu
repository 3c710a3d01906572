// Random ops from the rules of dynet_core/ops/random.h: the same counter-based values as the CPU,
// so a dropout mask is identical on both devices.

#include <vector>

#include "dynet_core/ops/random.h"
#include "gpu/device_operations.h"
#include "gpu/kernel_table.h"
#include "gpu/launch.cuh"

namespace dynet {
namespace gpu {

namespace {

/// Each node's op data in device scratch; node j owns elements [j n, (j + 1) n) of the group.
const RandomData* node_data(const OpCall& c) {
  std::vector<RandomData> host(c.nodes);
  for (unsigned j = 0; j < c.nodes; ++j) host[j] = c.op_data<RandomData>(j);
  return to_scratch(c, host.data(), host.size());
}

template <class Mask>
__global__ void mask_kernel(const RandomData* data, unsigned per_node, unsigned per_batch, const float* x, float* y,
                            std::size_t n, bool accumulate) {
  DYBATCH_GRID_STRIDE(i, n) {
    const unsigned e = unsigned(i % per_node);
    const float v = x[i] * Mask::at(data[i / per_node], e, per_batch);
    y[i] = accumulate ? y[i] + v : v;
  }
}

template <class Mask>
void mask_forward(const OpCall& c) {
  const std::size_t n = c.y.d.size();
  mask_kernel<Mask><<<blocks_for(n), kThreads, 0, stream_of(c)>>>(
      node_data(c), unsigned(n / c.nodes), unsigned(c.y.d.batch_size()), c.xs[0].v, c.y.v, n, false);
  check_launch("dropout forward");
}

template <class Mask>
void mask_backward(const OpCall& c, unsigned) {
  const std::size_t n = c.y.d.size();
  mask_kernel<Mask><<<blocks_for(n), kThreads, 0, stream_of(c)>>>(
      node_data(c), unsigned(n / c.nodes), unsigned(c.y.d.batch_size()), c.dy.v, c.dx.v, n, true);
  check_launch("dropout backward");
}

__global__ void noise_kernel(const RandomData* data, unsigned per_node, const float* x, float* y, std::size_t n) {
  DYBATCH_GRID_STRIDE(i, n) y[i] = x[i] + random_rules::noise_at(data[i / per_node], unsigned(i % per_node));
}

void noise_forward(const OpCall& c) {
  const std::size_t n = c.y.d.size();
  noise_kernel<<<blocks_for(n), kThreads, 0, stream_of(c)>>>(node_data(c), unsigned(n / c.nodes), c.xs[0].v, c.y.v, n);
  check_launch("noise forward");
}

void noise_backward(const OpCall& c, unsigned) { launch_accumulate(c.dx.v, c.dy.v, c.y.d.size(), stream_of(c)); }

template <class Sample>
__global__ void sample_kernel(const RandomData* data, unsigned per_node, float* y, std::size_t n) {
  DYBATCH_GRID_STRIDE(i, n) y[i] = Sample::at(data[i / per_node], unsigned(i % per_node));
}

template <class Sample>
void sample_forward(const OpCall& c) {
  const std::size_t n = c.y.d.size();
  sample_kernel<Sample><<<blocks_for(n), kThreads, 0, stream_of(c)>>>(node_data(c), unsigned(n / c.nodes), c.y.v, n);
  check_launch("random sample");
}

template <class Mask>
NamedKernel masked(const char* op) {
  return kernel_for(op, mask_forward<Mask>, mask_backward<Mask>);
}

}  // namespace

void add_random_kernels(KernelTable& t) {
  t.add({masked<random_rules::ElementMask>("dropout"), masked<random_rules::BatchMask>("dropout_batch"),
         masked<random_rules::BlockMask>("block_dropout"), kernel_for("noise", noise_forward, noise_backward),
         kernel_for("random_normal", sample_forward<random_rules::Normal>),
         kernel_for("random_uniform", sample_forward<random_rules::Uniform>),
         kernel_for("random_gumbel", sample_forward<random_rules::Gumbel>),
         kernel_for("random_bernoulli", sample_forward<random_rules::Bernoulli>)});
}

}  // namespace gpu
}  // namespace dynet
