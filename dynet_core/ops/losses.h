#pragma once
// Losses that need a dedicated kernel (others compose: squared_distance, pickneglogsoftmax...).

#include <vector>

#include "dynet_core/expression.h"

namespace dynet {

/// Multiclass hinge: y_b = sum over i != v of max(0, m - x_b[v] + x_b[i]); x a column vector.
Expression hinge(const Expression& x, unsigned v, float m = 1.f);
Expression hinge(const Expression& x, const std::vector<unsigned>& v, float m = 1.f);
Expression hinge(const Expression& x, const unsigned* pv, float m = 1.f);
Expression hinge(const Expression& x, const std::vector<unsigned>* pv, float m = 1.f);
/// y_b = -sum(t log x + (1 - t) log(1 - x)) over the elements of x_b, t_b; x is clamped to
/// [1e-7, 1 - 1e-7] for stability.
Expression binary_log_loss(const Expression& x, const Expression& t);

}  // namespace dynet
