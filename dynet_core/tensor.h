#pragma once
// A view of device memory with a shape. Tensors never own memory: pools do.

#include <iosfwd>
#include <vector>

#include "dynet_core/dim.h"

namespace dynet {

/// DyNet's name of the value type.
using real = float;

class Device;

/// DyNet's names of a device's memory pools: forward values, backward gradients, parameters,
/// scratch, none.
enum class DeviceMempool { FXS = 0, DEDFS = 1, PS = 2, SCS = 3, NONE = 4 };

struct Tensor {
  Dim d;
  float* v = nullptr;
  Device* device = nullptr;

  Tensor() = default;
  Tensor(const Dim& dim, float* values, Device* dev) : d(dim), v(values), device(dev) {}
  /// DyNet's constructor; the pool is not recorded (a tensor never owns its memory here).
  Tensor(const Dim& dim, float* values, Device* dev, DeviceMempool) : d(dim), v(values), device(dev) {}

  /// Start of batch element b; a tensor with one batch element broadcasts to every b.
  float* batch_ptr(unsigned b) const { return d.bd == 1 ? v : v + b * d.batch_size(); }
  /// DyNet's: the number of batch elements, and batch element b as a tensor of its own (the
  /// tensor itself when it has one); throws std::invalid_argument for b past the batch.
  unsigned batch_elems() const { return d.bd; }
  Tensor batch_elem(unsigned b) const;
};

/// DyNet's: each batch element's values as a matrix (rows x the rest), in Eigen's layout, one
/// batch element after another.
std::ostream& operator<<(std::ostream& os, const Tensor& t);

/// Copies all values to the host (every batch element, in order).
std::vector<float> as_vector(const Tensor& t);
/// Copies t.d.size() values from the host into the tensor.
void set_from_host(const Tensor& t, const float* host);
/// The single value of a tensor with exactly one element; throws otherwise.
float as_scalar(const Tensor& t);

}  // namespace dynet
