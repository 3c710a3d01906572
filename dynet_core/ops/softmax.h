#pragma once
// Softmax and its log, and the negative log-likelihood of a class under a softmax.

#include <vector>

#include "dynet_core/expression.h"

namespace dynet {

/// y = exp(x) / sum exp(x) along dimension d (0: each column).
Expression softmax(const Expression& x, unsigned d = 0);
/// y = x - log sum exp(x) over each column.
Expression log_softmax(const Expression& x);
/// y_b = -log softmax(x_b)[v]: x a column vector per batch element, one class for all of them.
Expression pickneglogsoftmax(const Expression& x, unsigned v);
/// One class per batch element.
Expression pickneglogsoftmax(const Expression& x, const std::vector<unsigned>& v);
Expression pickneglogsoftmax(const Expression& x, const unsigned* pv);
Expression pickneglogsoftmax(const Expression& x, const std::vector<unsigned>* pv);

}  // namespace dynet
