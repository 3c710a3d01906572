#pragma once
// Reshaping and concatenation.

#include <initializer_list>
#include <vector>

#include "dynet_core/expression.h"

namespace dynet {

/// The same values with dim d: either d.size() == x.size(), or d has batch size 1 and
/// d.batch_size() == x.batch_size() (the batch size of x is kept).
Expression reshape(const Expression& x, const Dim& d);
/// Joins xs along dimension d; the other dimensions must agree (batch sizes 1 or the same).
Expression concatenate(const std::vector<Expression>& xs, unsigned d = 0);
Expression concatenate(std::initializer_list<Expression> xs, unsigned d = 0);
/// concatenate(xs, 1): column vectors side by side.
Expression concatenate_cols(const std::vector<Expression>& xs);
Expression concatenate_cols(std::initializer_list<Expression> xs);
/// Joins xs (one shape) along the batch dimension.
Expression concatenate_to_batch(const std::vector<Expression>& xs);
Expression concatenate_to_batch(std::initializer_list<Expression> xs);

}  // namespace dynet
