#pragma once
// Trainable values. Storage lives in the device's parameter pool; Parameter and LookupParameter
// are cheap shared handles to it (a graph node refers to the storage directly).

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "dynet_core/tensor.h"

namespace dynet {

class Device;

struct ParameterStorage {
  std::string name;
  Dim dim;
  Tensor values;
  Tensor g;              ///< accumulated gradient, zeroed by the trainer after an update
  bool updated = true;   ///< false: trainers leave it unchanged
  Device* device = nullptr;

  std::size_t size() const { return dim.size(); }
  void zero_grad();
  /// DyNet's names: clear() zeroes the gradient, scale_parameters(a) multiplies the values by a.
  void clear() { zero_grad(); }
  void scale_parameters(float a);
};

struct LookupParameterStorage {
  std::string name;
  Dim dim;              ///< shape of one row (embedding)
  unsigned n = 0;       ///< number of rows
  Dim all_dim;          ///< dim with n appended: the shape of all_values
  Tensor all_values;    ///< dim with n appended as the last dimension
  Tensor all_grads;
  /// Row i of all_values / all_grads as a tensor of dim (DyNet's per-row views).
  std::vector<Tensor> values;
  std::vector<Tensor> grads;
  bool updated = true;
  Device* device = nullptr;
  /// Rows with a gradient since the last update, for sparse updates.
  std::vector<unsigned> touched;
  std::vector<std::uint8_t> touched_mask;
  bool all_touched = false;  ///< the whole table was used at once (parameter(cg, lookup))

  std::size_t row_size() const { return dim.size(); }
  float* row(unsigned i) const { return all_values.v + std::size_t(i) * row_size(); }
  float* grad_row(unsigned i) const { return all_grads.v + std::size_t(i) * row_size(); }
  void mark_touched(unsigned i) {
    if (!touched_mask[i]) {
      touched_mask[i] = 1;
      touched.push_back(i);
    }
  }
  /// Zeroes the gradient of touched rows (all rows when all_touched) and forgets them.
  void zero_grad();
  void clear() { zero_grad(); }
  void scale_parameters(float a);
};

/// A parameter as messages name it: its full name when the user gave one, otherwise "an unnamed
/// Parameter" and its collection; with its shape.
std::string describe(const ParameterStorage& s);
std::string describe(const LookupParameterStorage& s);

class Parameter {
 public:
  Parameter() = default;
  explicit Parameter(std::shared_ptr<ParameterStorage> storage) : p(std::move(storage)) {}

  ParameterStorage& get_storage() const;
  Dim dim() const { return get_storage().dim; }
  Tensor* values() { return &get_storage().values; }
  Tensor* gradients() { return &get_storage().g; }
  const std::string& get_fullname() const { return get_storage().name; }
  bool is_updated() const { return get_storage().updated; }
  void set_updated(bool b) { get_storage().updated = b; }
  /// Copies `v` into the values; throws if the size differs.
  void set_value(const std::vector<float>& v);
  void zero();
  void scale(float a);
  void scale_gradient(float a);
  void clip_inplace(float left, float right);
  explicit operator bool() const { return p != nullptr; }

  std::shared_ptr<ParameterStorage> p;
};

class LookupParameter {
 public:
  LookupParameter() = default;
  explicit LookupParameter(std::shared_ptr<LookupParameterStorage> storage) : p(std::move(storage)) {}

  LookupParameterStorage& get_storage() const;
  Dim dim() const { return get_storage().dim; }
  unsigned size() const { return get_storage().n; }
  const std::string& get_fullname() const { return get_storage().name; }
  bool is_updated() const { return get_storage().updated; }
  void set_updated(bool b) { get_storage().updated = b; }
  /// Row i as a tensor of dim().
  Tensor row_value(unsigned i) const;
  /// Every row as a tensor of dim() (DyNet's accessor).
  std::vector<Tensor>* values() { return &get_storage().values; }
  /// Sets row i; throws on a bad index or size.
  void initialize(unsigned i, const std::vector<float>& v);
  void zero();
  explicit operator bool() const { return p != nullptr; }

  std::shared_ptr<LookupParameterStorage> p;
};

}  // namespace dynet
