// Unary elementwise ops: one generic kernel pair instantiated from each scalar rule of
// dynet_core/ops/elementwise.h, the very rules the CPU kernels use, for each unary op of the
// element rules' list (gpu/element_rules.h).

#include <tuple>
#include <type_traits>

#include "dynet_core/ops/elementwise.h"
#include "gpu/element_rules.h"
#include "gpu/kernel_table.h"
#include "gpu/launch.cuh"

namespace dynet {
namespace gpu {

namespace {

template <class R>
__global__ void unary_forward_kernel(R r, const float* __restrict__ x, float* __restrict__ y, std::size_t n) {
  DYBATCH_GRID_STRIDE(i, n) y[i] = r.f(x[i]);
}

template <class R>
__global__ void unary_backward_kernel(R r, const float* __restrict__ x, const float* __restrict__ y,
                                      const float* __restrict__ dy, float* __restrict__ dx, std::size_t n,
                                      bool overwrite) {
  DYBATCH_GRID_STRIDE(i, n) {
    const float g = dy[i] * r.df(x[i], y[i]);
    dx[i] = overwrite ? g : dx[i] + g;
  }
}

template <class R>
void unary_forward(const OpCall& c) {
  const std::size_t n = c.y.d.size();
  unary_forward_kernel<<<blocks_for(n), kThreads, 0, stream_of(c)>>>(rules::rule_of<R>(c), c.xs[0].v, c.y.v, n);
  check_launch("unary forward");
}

template <class R>
void unary_backward(const OpCall& c, unsigned) {
  const std::size_t n = c.y.d.size();
  unary_backward_kernel<<<blocks_for(n), kThreads, 0, stream_of(c)>>>(rules::rule_of<R>(c), c.xs[0].v, c.y.v, c.dy.v,
                                                                      c.dx.v, n, c.overwrite);
  check_launch("unary backward");
}

/// The kernels of each unary entry of the element rules; the other entries are other families'.
template <class Entry>
void add_if_unary(KernelTable&, const Entry&) {}
template <class R>
void add_if_unary(KernelTable& t, const element::Entry<element::Unary<R>>& e) {
  t.add({kernel_for(elementwise_op_name(e.op), unary_forward<R>, unary_backward<R>)});
}

}  // namespace

void add_elementwise_kernels(KernelTable& t) {
  std::apply([&](const auto&... entries) { (add_if_unary(t, entries), ...); }, element::kRules);
}

}  // namespace gpu
}  // namespace dynet
