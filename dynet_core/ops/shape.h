#pragma once
// Reshaping and concatenation.

#include <vector>

#include "dynet_core/expression.h"

namespace dynet {

/// The same values with dim d: either d.size() == x.size(), or d has batch size 1 and
/// d.batch_size() == x.batch_size() (the batch size of x is kept).
Expression reshape(const Expression& x, const Dim& d);
/// Joins xs along dimension d; the other dimensions must agree (batch sizes 1 or the same).
Expression concatenate(ExpressionSpan xs, unsigned d = 0);
/// concatenate(xs, 1): column vectors side by side.
Expression concatenate_cols(ExpressionSpan xs);
/// Joins xs (one shape) along the batch dimension.
Expression concatenate_to_batch(ExpressionSpan xs);

}  // namespace dynet
