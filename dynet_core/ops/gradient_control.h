#pragma once
// Ops that change only how gradients flow.

#include "dynet_core/expression.h"
#include "dynet_core/ops/gradient_mode.h"

namespace dynet {

/// y = x; no gradient flows back to x.
Expression nobackprop(const Expression& x);
/// y = x; the gradient is multiplied by lambda on the way back.
Expression scale_gradient(const Expression& x, float lambda);
/// y = x; the gradient is negated (gradient reversal).
Expression flip_gradient(const Expression& x);
/// y = the one-hot vector of the first largest element of each column of x; its gradient is zero,
/// or that of the identity with straight_through_gradient.
Expression argmax(const Expression& x, GradientMode gradient_mode);

}  // namespace dynet
