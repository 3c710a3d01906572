#pragma once
// Eigen views of CPU tensors, for kernels. Device code never includes this header.

#include <Eigen/Core>

#include "dynet_core/tensor.h"

namespace dynet {
namespace eig {

using Matrix = Eigen::Map<Eigen::MatrixXf, Eigen::Unaligned>;
using Vector = Eigen::Map<Eigen::VectorXf, Eigen::Unaligned>;
using Array = Eigen::Map<Eigen::ArrayXf, Eigen::Unaligned>;

/// All values as one flat vector.
inline Vector vec(const Tensor& t) { return Vector(t.v, t.d.size()); }
inline Array arr(const Tensor& t) { return Array(t.v, t.d.size()); }
/// Batch element b as a rows x (product of the other dims) matrix.
inline Matrix mat(const Tensor& t, unsigned b = 0) {
  return Matrix(t.batch_ptr(b), t.d.rows(), t.d.batch_size() / t.d.rows());
}
/// All batch elements side by side: rows x (cols * batches). Valid because batches are outermost.
inline Matrix colbatch(const Tensor& t) { return Matrix(t.v, t.d.rows(), t.d.size() / t.d.rows()); }
/// One column per batch element: batch_size x bd.
inline Matrix batch_cols(const Tensor& t) { return Matrix(t.v, t.d.batch_size(), t.d.bd); }

}  // namespace eig
}  // namespace dynet
