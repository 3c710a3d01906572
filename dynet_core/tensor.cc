#include "dynet_core/tensor.h"

#include <stdexcept>

namespace dynet {

std::vector<float> as_vector(const Tensor& t) {
  if (!t.v) throw std::invalid_argument("as_vector: the tensor has no memory");
  return std::vector<float>(t.v, t.v + t.d.size());
}

float as_scalar(const Tensor& t) {
  if (t.d.size() != 1)
    throw std::invalid_argument("as_scalar: the tensor has dim " + to_string(t.d) +
                                "; expected exactly one element");
  return t.v[0];
}

}  // namespace dynet
