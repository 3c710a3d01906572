#pragma once
// DyNet's IndexTensor: a view of integer indices with a shape (argmax results in DyNet). Like a
// Tensor it never owns its memory.

#include <cstddef>
#include <vector>

#include "dynet_core/dim.h"

namespace dynet {

class Device;

struct IndexTensor {
  IndexTensor() = default;
  IndexTensor(const Dim& dim, std::ptrdiff_t* values, Device* dev) : d(dim), v(values), device(dev) {}

  Dim d;
  std::ptrdiff_t* v = nullptr;
  Device* device = nullptr;
};

/// Copies all indices to the host.
inline std::vector<std::ptrdiff_t> as_vector(const IndexTensor& t) {
  return t.v ? std::vector<std::ptrdiff_t>(t.v, t.v + t.d.size()) : std::vector<std::ptrdiff_t>();
}

}  // namespace dynet
