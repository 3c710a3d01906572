#pragma once
// Tests read device memory as users do: through copies to the host.

#include <Eigen/Core>
#include <vector>

#include "dynet_core/tensor.h"

namespace dynet {

/// Appends the values of `t` to `out`.
inline void append_values(std::vector<float>& out, const Tensor& t) {
  const std::vector<float> v = as_vector(t);
  out.insert(out.end(), v.begin(), v.end());
}

/// The values of `t` as a rows x cols matrix on the host.
inline Eigen::MatrixXf host_matrix(const Tensor& t) {
  const std::vector<float> v = as_vector(t);
  return Eigen::Map<const Eigen::MatrixXf>(v.data(), t.d.rows(), t.d.cols());
}

}  // namespace dynet
