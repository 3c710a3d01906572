#pragma once
// Trainable values. Storage lives in the device's parameter pool; Parameter and LookupParameter
// are cheap shared handles to it (a graph node refers to the storage directly).

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "dynet_core/tensor.h"
#include "dynet_core/touched_rows.h"
#include "dynet_core/weight_decay.h"

namespace dynet {

class Device;
class ParameterCollection;

/// DyNet's common interface of both storages, for code that walks all of a collection's
/// parameters (ParameterCollection::get_parameter_storages_base).
struct ParameterStorageBase {
  virtual ~ParameterStorageBase() = default;
  virtual void scale_parameters(float a) = 0;
  virtual void scale_gradient(float a) = 0;
  /// The values to 0 (a Parameter's gradient too, as DyNet).
  virtual void zero() = 0;
  /// *sqnorm = the squared L2 norm of the stored values / of the gradient.
  virtual void squared_l2norm(float* sqnorm) const = 0;
  virtual void g_squared_l2norm(float* sqnorm) const = 0;
  virtual bool is_updated() const { return updated; }
  /// Whether a gradient was accumulated since the gradient was last zeroed (by a trainer's
  /// update, reset_gradient or clear), even one of zeros: backward reached the parameter, or
  /// accumulate_grad was called. A flag, so asking costs nothing.
  virtual bool has_grad() const { return nonzero_grad; }
  /// Number of values.
  virtual std::size_t size() const = 0;
  /// The factor expressions read the stored values times (DyNet's lazy weight decay).
  float current_weight_decay() const { return decay ? decay->current_weight_decay() : 1.f; }

  bool updated = true;        ///< false: trainers leave it unchanged
  bool nonzero_grad = false;  ///< DyNet's name of what has_grad() says
  /// The root collection of the tree the parameter was created in (DyNet's); null once that
  /// collection is destroyed.
  ParameterCollection* owner = nullptr;
  Device* device = nullptr;
  /// The weight decay of the owner: expressions read current_weight_decay() * values, as in DyNet.
  L2WeightDecay* decay = nullptr;
};

struct ParameterStorage : ParameterStorageBase {
  std::string name;
  Dim dim;
  Tensor values;
  Tensor g;  ///< accumulated gradient, zeroed by the trainer after an update

  std::size_t size() const override { return dim.size(); }
  /// Zeroes the gradient and forgets that it was accumulated.
  void zero_grad();
  /// DyNet's names: clear() zeroes the gradient, scale_parameters(a) multiplies the values by a.
  void clear() { zero_grad(); }
  /// DyNet's: g += d, d a tensor of dim on the parameter's device; throws std::invalid_argument
  /// for another size or device.
  void accumulate_grad(const Tensor& d);
  void scale_parameters(float a) override;
  void scale_gradient(float a) override;
  void zero() override;
  void squared_l2norm(float* sqnorm) const override;
  void g_squared_l2norm(float* sqnorm) const override;
  /// The values clipped to [left, right] / set from `val` / copied from `other` (same dim), as
  /// DyNet's storage does (no weight-decay factor involved); throw std::invalid_argument on a
  /// size mismatch.
  void clip(float left, float right);
  void set_value(const std::vector<float>& val);
  void copy(const ParameterStorage& other);
};

struct LookupParameterStorage : ParameterStorageBase {
  std::string name;
  Dim dim;            ///< shape of one row (embedding)
  unsigned n = 0;     ///< number of rows
  Dim all_dim;        ///< dim with n appended: the shape of all_values
  Tensor all_values;  ///< dim with n appended as the last dimension
  Tensor all_grads;
  /// Row i of all_values / all_grads as a tensor of dim (DyNet's per-row views).
  std::vector<Tensor> values;
  std::vector<Tensor> grads;
  /// Rows with a gradient since the last update, for sparse updates (DyNet's names).
  TouchedRows non_zero_grads;
  /// The whole table has a gradient (parameter(cg, lookup), accumulate_grad(g)); always, with
  /// parameters shared between processes, whose rows other processes may have touched.
  bool all_updated = false;

  std::size_t row_size() const { return dim.size(); }
  std::size_t size() const override { return all_dim.size(); }
  float* row(unsigned i) const { return all_values.v + std::size_t(i) * row_size(); }
  float* grad_row(unsigned i) const { return all_grads.v + std::size_t(i) * row_size(); }
  /// DyNet's: dim, n and the per-row views values / grads from all_dim, all_values and all_grads
  /// (after those were replaced); the touched rows are kept unless the number of rows changed.
  void initialize_lookups();
  /// Zeroes the gradient of touched rows (all rows when all_updated), forgets them and that a
  /// gradient was accumulated.
  void zero_grad();
  void clear() { zero_grad(); }
  /// DyNet's: all_grads += d (d of all_dim), or row `index`'s gradient += d (d of dim), on the
  /// table's device; throw std::invalid_argument for another size or device or a bad index.
  void accumulate_grad(const Tensor& d);
  void accumulate_grad(unsigned index, const Tensor& d);
  /// DyNet's: the gradient of row ids_host[i] += the i-th of `n` rows at g (device memory of the
  /// table's device); ids_dev, the same indices in device memory for DyNet's GPU kernel, is not
  /// read. Throws std::invalid_argument for a bad index, changing nothing.
  void accumulate_grads(unsigned n, const unsigned* ids_host, const unsigned* ids_dev, float* g);
  void scale_parameters(float a) override;
  void scale_gradient(float a) override;
  void zero() override;
  void squared_l2norm(float* sqnorm) const override;
  void g_squared_l2norm(float* sqnorm) const override;
  /// Row `index` set from `val` (DyNet's); throws std::invalid_argument on a bad index or size.
  void initialize(unsigned index, const std::vector<float>& val);
  void copy(const LookupParameterStorage& other);
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
  /// The stored values v; expressions read current_weight_decay() * v (DyNet's lazy weight decay).
  Tensor* values() { return &get_storage().values; }
  Tensor* gradients() { return &get_storage().g; }
  /// The pending weight-decay factor of the parameter's root collection (1 without weight decay).
  float current_weight_decay() const { return get_storage().current_weight_decay(); }
  const std::string& get_fullname() const { return get_storage().name; }
  bool is_updated() const { return get_storage().updated; }
  void set_updated(bool b) { get_storage().updated = b; }
  /// Copies `v` into the values; throws if the size differs.
  void set_value(const std::vector<float>& v);
  void zero();
  void scale(float a);
  void scale_gradient(float a);
  /// Clips what expressions read to [left, right]: the stored values to [left, right] / current_weight_decay().
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
  float current_weight_decay() const { return get_storage().current_weight_decay(); }
  /// Sets row i; throws on a bad index or size.
  void initialize(unsigned i, const std::vector<float>& v) const;
  void zero();
  void scale(float a) { get_storage().scale_parameters(a); }
  void scale_gradient(float a) { get_storage().scale_gradient(a); }
  explicit operator bool() const { return p != nullptr; }

  std::shared_ptr<LookupParameterStorage> p;
};

}  // namespace dynet
