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

/// The inverse of each square matrix x_b.
Expression inverse(const Expression& x);
/// y_b = log |det x_b| for square x_b (DyNet gives NaN where the determinant is negative; the
/// gradient, x_b^-T, is the same).
Expression logdet(const Expression& x);
/// y_b = trace(x_b y_b^T) = sum of x_b * y_b over the elements, for x and y of one shape.
Expression trace_of_product(const Expression& x, const Expression& y);
/// z_ij = sum_k x_ijk y_k for x {I, J, K} and y {K}; with b, z = b + that (b {I, J}).
Expression contract3d_1d(const Expression& x, const Expression& y);
Expression contract3d_1d(const Expression& x, const Expression& y, const Expression& b);
/// t_i = sum_jk x_ijk y_k z_j for x {I, J, K}, y {K}, z {J}; with b, t = b + that (b {I}).
Expression contract3d_1d_1d(const Expression& x, const Expression& y, const Expression& z);
Expression contract3d_1d_1d(const Expression& x, const Expression& y, const Expression& z, const Expression& b);

}  // namespace dynet
