// Unary elementwise ops: one generic kernel pair instantiated from each scalar rule of
// dynet_core/ops/elementwise.h, the very rules the CPU kernels use.

#include <type_traits>

#include "dynet_core/ops/elementwise.h"
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

template <class R>
NamedKernel unary(const char* op) {
  return kernel_for(op, unary_forward<R>, unary_backward<R>);
}

}  // namespace

void add_elementwise_kernels(KernelTable& t) {
  t.add({unary<rules::Negate>("negate"), unary<rules::Tanh>("tanh"), unary<rules::Logistic>("logistic"),
         unary<rules::Rectify>("rectify"), unary<rules::Elu>("elu"), unary<rules::Selu>("selu"),
         unary<rules::Silu>("silu"), unary<rules::Softsign>("softsign"), unary<rules::Exp>("exp"),
         unary<rules::Log>("log"), unary<rules::LogSigmoid>("log_sigmoid"), unary<rules::Square>("square"),
         unary<rules::Cube>("cube"), unary<rules::Sqrt>("sqrt"), unary<rules::Abs>("abs"), unary<rules::Sin>("sin"),
         unary<rules::Cos>("cos"), unary<rules::Erf>("erf"), unary<rules::Tan>("tan"), unary<rules::Asin>("asin"),
         unary<rules::Acos>("acos"), unary<rules::Atan>("atan"), unary<rules::Sinh>("sinh"),
         unary<rules::Cosh>("cosh"), unary<rules::Asinh>("asinh"), unary<rules::Acosh>("acosh"),
         unary<rules::Atanh>("atanh"), unary<rules::Lgamma>("lgamma"), unary<rules::Rounding>("round"),
         unary<rules::Rounding>("ceil"), unary<rules::Rounding>("floor"), unary<rules::AddConst>("add_constant"),
         unary<rules::ConstMinus>("constant_minus"), unary<rules::MulConst>("multiply_constant")});
}

}  // namespace gpu
}  // namespace dynet
