#pragma once
// Matrix products and transposition. Products follow the batch rules of gemm(): a batch of one
// broadcasts, so a shared weight times a batch of inputs is one GEMM.

#include <vector>

#include "dynet_core/expression.h"

namespace dynet {

/// y = a b (matrix product); a {n, k}, b {k, m}.
Expression operator*(const Expression& a, const Expression& b);
/// y = b + W1 x1 + W2 x2 + ...; xs = {b, W1, x1, W2, x2, ...}. b may be a column broadcast over
/// the columns of the products.
Expression affine_transform(ExpressionSpan xs);
/// Permutes dimensions: y[i_dims[0], i_dims[1], ...] = x[i_0, i_1, ...]; the default swaps rows
/// and columns.
Expression transpose(const Expression& x, const std::vector<unsigned>& dims = {1, 0});

}  // namespace dynet
