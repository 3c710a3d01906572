#include "dynet_core/tensor.h"

#include <algorithm>
#include <stdexcept>

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

void set_from_host(const Tensor& t, const float* host) {
  if (t.device)
    t.device->to_device(t.v, host, t.d.size());
  else
    std::copy(host, host + t.d.size(), t.v);
}

float as_scalar(const Tensor& t) {
  if (t.d.size() != 1)
    throw std::invalid_argument("as_scalar: the tensor has dim " + to_string(t.d) + "; expected exactly one element");
  if (!t.device) return t.v[0];
  float x;
  t.device->to_host(&x, t.v, 1);
  return x;
}

}  // namespace dynet
