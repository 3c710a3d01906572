#pragma once
// DyNet's check_grad, for users testing their own models: compares the gradient backward()
// accumulates into every parameter of `m` (and every lookup row the expression uses) with central
// differences of the scalar `expr`, element by element.

#include "dynet_core/expression.h"

namespace dynet {

class ParameterCollection;

/// Zeroes the gradients of `m`, runs forward and backward on `expr` (a scalar), then perturbs each
/// value by ±5e-3 and compares, as DyNet's does: an element disagrees when |numeric - analytic|
/// exceeds 0.01 both absolutely and relative to the larger of the two. Where DyNet's check would
/// stop there, a disagreeing element is measured again by Richardson's estimate from the half step,
/// which cancels the central difference's O(step^2) error, and fails only if that disagrees too:
/// DyNet's check reports right gradients as wrong where the loss curves sharply. verbosity 0: silent; 1: failures and the
/// verdict on std::cerr; 2: every element. Returns true when no element fails. The gradients of
/// the analytic pass are left in the parameters; the values are restored.
bool check_grad(ParameterCollection& m, Expression& expr, int verbosity = 1);

}  // namespace dynet
