#pragma once
// DyNet's IndexTensor: integer indices with a shape (what TensorTools::argmax returns). Either a
// view of someone's memory, like a Tensor, or the owner of its indices, shared by its copies.

#include <cstddef>
#include <memory>
#include <vector>

#include "dynet_core/dim.h"

namespace dynet {

class Device;

struct IndexTensor {
  IndexTensor() = default;
  IndexTensor(const Dim& dim, std::ptrdiff_t* values, Device* dev) : d(dim), v(values), device(dev) {}
  /// Room of its own for dim.size() indices, zeroed; copies share it, the last one frees it.
  IndexTensor(const Dim& dim, Device* dev) : d(dim), device(dev), owned_(new std::ptrdiff_t[dim.size()]()) {
    v = owned_.get();
  }

  Dim d;
  std::ptrdiff_t* v = nullptr;
  Device* device = nullptr;

  /// Keeps `owner` alive while this tensor or a copy lives: memory returned with the indices
  /// (TensorTools::topk's values).
  void hold(std::shared_ptr<void> owner) { held_ = std::move(owner); }

 private:
  std::shared_ptr<std::ptrdiff_t[]> owned_;
  std::shared_ptr<void> held_;
};

/// Copies all indices to the host.
inline std::vector<std::ptrdiff_t> as_vector(const IndexTensor& t) {
  return t.v ? std::vector<std::ptrdiff_t>(t.v, t.v + t.d.size()) : std::vector<std::ptrdiff_t>();
}

}  // namespace dynet
