#pragma once
// How the ops whose true gradient is zero almost everywhere (argmax, round, ceil, floor) pass
// gradients back, as DyNet names the choice.

namespace dynet {

enum GradientMode {
  zero_gradient,             ///< the true gradient: nothing flows back
  straight_through_gradient  ///< the gradient of the identity (Bengio et al., 2013)
};
/// DyNet's older name for the same choice.
using ArgmaxGradient = GradientMode;

}  // namespace dynet
