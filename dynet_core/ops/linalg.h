#pragma once
// Matrix products and transposition. Products follow the batch rules of gemm(): a batch of one
// broadcasts, so a shared weight times a batch of inputs is one GEMM.

#include <math.h>

#include <vector>

#include "dynet_core/expression.h"
#include "dynet_core/ops/host_device.h"

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

/// transpose's op data: y's dimension k is x's dimension perm[k].
struct Permutation {
  unsigned n;
  unsigned perm[Dim::kMaxDims];
};

/// LU factorization with partial pivoting of the n x n column-major matrix in lu (in place);
/// perm[i] is the row of the input at row i. inverse and logdet run it on every device.
DYBATCH_HD void lu_factor(float* lu, unsigned n, unsigned* perm) {
  for (unsigned i = 0; i < n; ++i) perm[i] = i;
  for (unsigned k = 0; k < n; ++k) {
    unsigned p = k;
    for (unsigned i = k + 1; i < n; ++i)
      if (fabsf(lu[i + n * k]) > fabsf(lu[p + n * k])) p = i;
    if (p != k) {
      for (unsigned j = 0; j < n; ++j) {
        const float t = lu[k + n * j];
        lu[k + n * j] = lu[p + n * j];
        lu[p + n * j] = t;
      }
      const unsigned t = perm[k];
      perm[k] = perm[p];
      perm[p] = t;
    }
    const float pivot = lu[k + n * k];
    for (unsigned i = k + 1; i < n; ++i) {
      const float l = lu[i + n * k] /= pivot;
      for (unsigned j = k + 1; j < n; ++j) lu[i + n * j] -= l * lu[k + n * j];
    }
  }
}

/// Column col of the inverse of the matrix whose LU factors lu_factor left in lu and perm; columns
/// are independent, so a GPU block's threads solve them side by side.
DYBATCH_HD void lu_invert_column(const float* lu, const unsigned* perm, unsigned n, unsigned col, float* out) {
  float* e = out + static_cast<std::size_t>(n) * col;
  for (unsigned i = 0; i < n; ++i) e[i] = perm[i] == col ? 1.f : 0.f;
  for (unsigned i = 0; i < n; ++i)
    for (unsigned j = 0; j < i; ++j) e[i] -= lu[i + n * j] * e[j];
  for (unsigned i = n; i-- > 0;) {
    for (unsigned j = i + 1; j < n; ++j) e[i] -= lu[i + n * j] * e[j];
    e[i] /= lu[i + n * i];
  }
}

/// out = the inverse of the matrix whose LU factors lu_factor left in lu and perm.
DYBATCH_HD void lu_invert(const float* lu, const unsigned* perm, unsigned n, float* out) {
  for (unsigned col = 0; col < n; ++col) lu_invert_column(lu, perm, n, col, out);
}

}  // namespace dynet
