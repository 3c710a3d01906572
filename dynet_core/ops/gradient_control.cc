#include "dynet_core/ops/gradient_control.h"

#include <cstring>

#include "dynet_core/graph.h"
#include "dynet_core/ops/called_as.h"
#include "dynet_core/ops/check_case.h"
#include "dynet_core/ops/registry.h"

namespace dynet {

namespace {

Dim same_dim(const DimArgs& xs, const void*) { return xs[0]; }
void copy_forward(const OpCall& c) { std::memcpy(c.y.v, c.xs[0].v, c.y.d.size() * sizeof(float)); }
void scaled_backward(const OpCall& c, unsigned) {
  const float lambda = c.op_data<float>();
  for (unsigned e = 0; e < c.y.d.size(); ++e) c.dx.v[e] += lambda * c.dy.v[e];
}

OpDef NoBackpropOp{"nobackprop", 1, same_dim, copy_forward, nullptr, kSavesNothing, {BatchRule::Concat},
                   {[](CheckCase& c) { return nobackprop(c.constant_input(c.shape(0, 3, c.batch()))); }}};
OpDef ScaleGradientOp{"scale_gradient", 1, same_dim, copy_forward, scaled_backward, kSavesNothing,
                      {BatchRule::Concat, 0, false, sizeof(float)},
                      {[](CheckCase& c) {
                        // The numeric gradient sees the identity, so the check scales by 1; the
                        // reversal itself has its own test.
                        return scale_gradient(c.input(c.shape(0, 3, c.batch())), 1.f);
                      }}};

}  // namespace

Expression nobackprop(const Expression& x) { return graph_of(x, "nobackprop").append(NoBackpropOp, {x}); }
Expression scale_gradient(const Expression& x, float lambda) {
  ComputationGraph& g = graph_of(x, "scale_gradient");
  return g.append(ScaleGradientOp, {x}, g.store(lambda));
}
Expression flip_gradient(const Expression& x) {
  return called_as("flip_gradient", [&] { return scale_gradient(x, -1.f); });
}

void register_gradient_control_ops() { register_ops({&NoBackpropOp, &ScaleGradientOp}); }

}  // namespace dynet
