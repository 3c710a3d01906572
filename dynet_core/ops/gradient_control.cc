#include "dynet_core/ops/gradient_control.h"

#include <cstring>

#include "dynet_core/graph.h"
#include "dynet_core/ops/accumulate.h"
#include "dynet_core/ops/called_as.h"
#include "dynet_core/ops/check_case.h"
#include "dynet_core/ops/registry.h"

namespace dynet {

namespace {

// nobackprop and scale_gradient are y = x with a gradient of 0 or lambda dy: ElementwiseRule runs,
// which the kernels run over the whole tensor.
void copy_run(const void*, const float* const* xs, unsigned, float* y, std::size_t n) {
  std::memcpy(y, xs[0], n * sizeof(float));
}
void scaled_run_gradient(const void* data, unsigned, const float* const*, unsigned, const float*, const float* dy,
                         float* dx, std::size_t n, bool overwrite) {
  const float lambda = *static_cast<const float*>(data);
  write_gradient(dx, n, overwrite, [&](std::size_t e) { return lambda * dy[e]; });
}
void copy_forward(const OpCall& c) { copy_run(nullptr, &c.xs[0].v, 1, c.y.v, c.y.d.size()); }
void scaled_backward(const OpCall& c, unsigned) {
  scaled_run_gradient(c.data[0], 0, nullptr, 1, nullptr, c.dy.v, c.dx.v, c.y.d.size(), c.overwrite);
}

OpDef NoBackpropOp = OpRow(elementwise_op_name(ElementwiseOp::nobackprop))
                         .arity(1)
                         .infer(first_argument_shape)
                         .forward(copy_forward)
                         .saves(kSavesNothing)
                         .batch(ConcatBatch())
                         .check([](CheckCase& c) { return nobackprop(c.constant_input(c.shape(0, 3, c.batch()))); })
                         .elementwise(ElementwiseRule(ElementwiseOp::nobackprop, copy_run, nullptr));
OpDef ScaleGradientOp = OpRow(elementwise_op_name(ElementwiseOp::scale_gradient))
                            .arity(1)
                            .infer(first_argument_shape)
                            .forward(copy_forward)
                            .backward(scaled_backward)
                            .saves(kSavesNothing)
                            .batch(ConcatBatch().sig_bytes(sizeof(float)))
                            .check([](CheckCase& c) {
                              // The numeric gradient sees the identity, so the check scales by 1; the
                              // reversal itself has its own test.
                              return scale_gradient(c.input(c.shape(0, 3, c.batch())), 1.f);
                            })
                            .elementwise(ElementwiseRule(ElementwiseOp::scale_gradient, copy_run, scaled_run_gradient));

void argmax_forward(const OpCall& c) {
  const unsigned n = c.y.d.rows(), cols = c.y.d.size() / n;
  std::memset(c.y.v, 0, c.y.d.size() * sizeof(float));
  for (unsigned b = 0; b < cols; ++b) {
    const float* x = c.xs[0].v + std::size_t(b) * n;
    unsigned best = 0;
    for (unsigned i = 1; i < n; ++i)
      if (x[i] > x[best]) best = i;
    c.y.v[std::size_t(b) * n + best] = 1.f;
  }
}
OpDef ArgmaxOp = OpRow("argmax")
                     .arity(1)
                     .infer(first_argument_shape)
                     .forward(argmax_forward)
                     .backward(scaled_backward)
                     .saves(kSavesNothing)
                     .batch(ConcatBatch().sig_bytes(sizeof(float)))
                     .check([](CheckCase& c) {
                       // The one-hot output is flat almost everywhere: only the zero gradient matches
                       // central differences; the straight-through estimator has its own test.
                       return argmax(c.input(c.shape(1, 2, c.batch())), zero_gradient);
                     });

}  // namespace

Expression nobackprop(const Expression& x) { return graph_of(x, "nobackprop").append(NoBackpropOp, {x}); }
Expression scale_gradient(const Expression& x, float lambda) {
  ComputationGraph& g = graph_of(x, "scale_gradient");
  return g.append(ScaleGradientOp, {x}, g.store(lambda));
}
Expression flip_gradient(const Expression& x) {
  return called_as("flip_gradient", [&] { return scale_gradient(x, -1.f); });
}
Expression argmax(const Expression& x, GradientMode gradient_mode) {
  ComputationGraph& g = graph_of(x, "argmax");
  return g.append(ArgmaxOp, {x}, g.store(gradient_mode == straight_through_gradient ? 1.f : 0.f));
}

void register_gradient_control_ops() { register_ops({&NoBackpropOp, &ScaleGradientOp, &ArgmaxOp}); }

}  // namespace dynet
