#pragma once
// Ops that change only how gradients flow.

#include "dynet_core/expression.h"

namespace dynet {

/// y = x; no gradient flows back to x.
Expression nobackprop(const Expression& x);
/// y = x; the gradient is multiplied by lambda on the way back.
Expression scale_gradient(const Expression& x, float lambda);
/// y = x; the gradient is negated (gradient reversal).
Expression flip_gradient(const Expression& x);

}  // namespace dynet
