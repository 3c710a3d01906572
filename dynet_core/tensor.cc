#include "dynet_core/tensor.h"

#include <algorithm>
#include <ostream>
#include <stdexcept>
#include <string>

#include <Eigen/Core>

#include "dynet_core/device/device.h"

namespace dynet {

// A tensor without a device is a view of host memory.

std::vector<float> as_vector(const Tensor& t) {
  if (!t.v) throw std::invalid_argument("as_vector: the tensor has no memory");
  if (!t.device) return std::vector<float>(t.v, t.v + t.d.size());
  std::vector<float> host(t.d.size());
  t.device->to_host(host.data(), t.v, host.size());
  return host;
}

Tensor Tensor::batch_elem(unsigned b) const {
  if (d.bd == 1) return *this;
  if (b >= d.bd)
    throw std::invalid_argument("Tensor::batch_elem: element " + std::to_string(b) + " of a batch of " +
                                std::to_string(d.bd));
  return Tensor(d.single_batch(), batch_ptr(b), device);
}

std::ostream& operator<<(std::ostream& os, const Tensor& t) {
  const std::vector<float> host = as_vector(t);
  const Dim one = t.d.single_batch();
  const Eigen::Index rows = one.rows(), cols = rows ? static_cast<Eigen::Index>(one.size() / rows) : 0;
  for (unsigned b = 0; b < t.d.bd; ++b) {
    if (b) os << '\n';
    os << Eigen::Map<const Eigen::MatrixXf>(host.data() + std::size_t(b) * one.size(), rows, cols);
  }
  return os;
}

void set_from_host(const Tensor& t, const float* host) {
  if (t.device)
    t.device->to_device(t.v, host, t.d.size());
  else
    std::copy(host, host + t.d.size(), t.v);
}

float as_scalar(const Tensor& t) {
  // std::runtime_error, as DyNet's: programs catch it as that.
  if (t.d.size() != 1)
    throw std::runtime_error("as_scalar: the tensor has dim " + to_string(t.d) + "; expected exactly one element");
  if (!t.device) return t.v[0];
  float x;
  t.device->to_host(&x, t.v, 1);
  return x;
}

}  // namespace dynet
