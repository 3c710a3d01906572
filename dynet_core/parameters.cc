#include "dynet_core/parameters.h"

#include <algorithm>
#include <stdexcept>

#include "dynet_core/device/device.h"

namespace dynet {

namespace {

/// "the <kind> '/name'", or for a parameter the user did not name (its last part is the "_N" a
/// collection makes up) "an unnamed <kind>", with the collection when it is not the root.
std::string describe_name(const std::string& full, const char* kind) {
  const std::size_t slash = full.rfind('/');
  const std::string collection = full.substr(0, slash + 1), last = full.substr(slash + 1);
  const bool unnamed =
      last.size() > 1 && last[0] == '_' && last.find_first_not_of("0123456789", 1) == std::string::npos;
  if (!unnamed) return std::string("the ") + kind + " '" + full + "'";
  return std::string("an unnamed ") + kind + (collection == "/" ? "" : " of the collection '" + collection + "'");
}

/// The run table of a device call over a table's rows, emptied: one a thread, grown to the
/// largest call and then reused, so zeroing after every update allocates nothing.
std::vector<MemoryRun>& row_runs() {
  thread_local std::vector<MemoryRun> runs;
  runs.clear();
  return runs;
}

}  // namespace

std::string describe(const ParameterStorage& s) {
  return describe_name(s.name, "Parameter") + " of dim " + to_string(s.dim);
}

std::string describe(const LookupParameterStorage& s) {
  return describe_name(s.name, "LookupParameter") + " of " + std::to_string(s.n) + " rows of dim " + to_string(s.dim);
}

namespace {

void set_values(ParameterStorage& s, const std::vector<float>& v, const char* who) {
  if (v.size() != s.size())
    throw std::invalid_argument(std::string(who) + ": " + describe(s) + " holds " + std::to_string(s.size()) +
                                " values, got " + std::to_string(v.size()) + " values");
  s.device->to_device(s.values.v, v.data(), v.size());
}

void clip_values(ParameterStorage& s, float left, float right, const char* who) {
  if (!(left <= right))
    throw std::invalid_argument(std::string(who) + ": left " + std::to_string(left) + " must not exceed right " +
                                std::to_string(right));
  std::vector<float> host(s.size());
  s.device->to_host(host.data(), s.values.v, host.size());
  for (float& x : host) x = std::min(right, std::max(left, x));
  s.device->to_device(s.values.v, host.data(), host.size());
}

void set_row(LookupParameterStorage& s, unsigned i, const std::vector<float>& v, const char* who) {
  if (i >= s.n)
    throw std::invalid_argument(std::string(who) + ": index " + std::to_string(i) + " is out of range for " +
                                describe(s));
  if (v.size() != s.row_size())
    throw std::invalid_argument(std::string(who) + ": a row of " + describe(s) + " holds " +
                                std::to_string(s.row_size()) + " values, got " + std::to_string(v.size()));
  s.device->to_device(s.row(i), v.data(), v.size());
}

float squared_norm(Device& d, const float* v, std::size_t n) { return static_cast<float>(d.squared_norm(v, n)); }

/// Throws unless d is `n` values on `device`.
void check_gradient(const Tensor& d, std::size_t n, const Device* device, const std::string& who,
                    const std::string& what) {
  if (d.d.size() != n)
    throw std::invalid_argument(who + ": " + what + " holds " + std::to_string(n) + " values, the tensor " +
                                std::to_string(d.d.size()) + " (dim " + to_string(d.d) + ")");
  if (d.device != device) throw std::invalid_argument(who + ": the tensor is not on the device of " + what);
}

}  // namespace

void ParameterStorage::zero_grad() {
  device->zero(g.v, size());
  nonzero_grad = false;
}

void ParameterStorage::accumulate_grad(const Tensor& d) {
  check_gradient(d, size(), device, "ParameterStorage::accumulate_grad", "the gradient of " + describe(*this));
  device->accumulate(g.v, d.v, size());
  nonzero_grad = true;
}

void ParameterStorage::scale_parameters(float a) { device->scale(values.v, a, size()); }
void ParameterStorage::scale_gradient(float a) { device->scale(g.v, a, size()); }
void ParameterStorage::zero() {
  device->zero(values.v, size());
  zero_grad();
}
void ParameterStorage::squared_l2norm(float* sqnorm) const { *sqnorm = squared_norm(*device, values.v, size()); }
void ParameterStorage::g_squared_l2norm(float* sqnorm) const { *sqnorm = squared_norm(*device, g.v, size()); }
void ParameterStorage::clip(float left, float right) { clip_values(*this, left, right, "ParameterStorage::clip"); }
void ParameterStorage::set_value(const std::vector<float>& val) {
  set_values(*this, val, "ParameterStorage::set_value");
}
void ParameterStorage::copy(const ParameterStorage& other) {
  if (other.dim != dim)
    throw std::invalid_argument("ParameterStorage::copy: " + describe(*this) + " cannot take the values of " +
                                describe(other));
  device->copy(values.v, other.values.v, size());
}

void LookupParameterStorage::scale_parameters(float a) { device->scale(all_values.v, a, size()); }
void LookupParameterStorage::scale_gradient(float a) { device->scale(all_grads.v, a, size()); }
void LookupParameterStorage::zero() { device->zero(all_values.v, size()); }
void LookupParameterStorage::squared_l2norm(float* sqnorm) const {
  *sqnorm = squared_norm(*device, all_values.v, size());
}
void LookupParameterStorage::g_squared_l2norm(float* sqnorm) const {
  *sqnorm = squared_norm(*device, all_grads.v, size());
}
void LookupParameterStorage::initialize(unsigned index, const std::vector<float>& val) {
  set_row(*this, index, val, "LookupParameterStorage::initialize");
}
void LookupParameterStorage::copy(const LookupParameterStorage& other) {
  if (other.all_dim != all_dim)
    throw std::invalid_argument("LookupParameterStorage::copy: " + describe(*this) + " cannot take the values of " +
                                describe(other));
  device->copy(all_values.v, other.all_values.v, size());
}

void LookupParameterStorage::initialize_lookups() {
  if (all_dim.ndims() == 0)
    throw std::invalid_argument("LookupParameterStorage::initialize_lookups: all_dim " + to_string(all_dim) +
                                " has no dimension of rows");
  const unsigned rows = all_dim[all_dim.ndims() - 1];
  dim = all_dim;
  dim.delete_dim(all_dim.ndims() - 1);
  values.clear();
  grads.clear();
  for (unsigned i = 0; i < rows; ++i) {
    values.emplace_back(dim, all_values.v + std::size_t(i) * dim.size(), device);
    grads.emplace_back(dim, all_grads.v + std::size_t(i) * dim.size(), device);
  }
  if (rows != n) non_zero_grads = TouchedRows(rows);
  n = rows;
}

void LookupParameterStorage::zero_grad() {
  if (all_updated) {
    device->zero(all_grads.v, std::size_t(n) * row_size());
  } else {
    std::vector<MemoryRun>& rows = row_runs();
    for (unsigned i : non_zero_grads) rows.push_back({grad_row(i), nullptr, row_size()});
    device->apply_runs(RunOp::Zero, rows.data(), rows.size());
  }
  non_zero_grads.clear();
  all_updated = device->parameters_shared();
  nonzero_grad = false;
}

void LookupParameterStorage::accumulate_grad(const Tensor& d) {
  check_gradient(d, size(), device, "LookupParameterStorage::accumulate_grad", "the gradient of " + describe(*this));
  device->accumulate(all_grads.v, d.v, size());
  all_updated = true;
  nonzero_grad = true;
}

void LookupParameterStorage::accumulate_grad(unsigned index, const Tensor& d) {
  const char* who = "LookupParameterStorage::accumulate_grad";
  if (index >= n)
    throw std::invalid_argument(std::string(who) + ": index " + std::to_string(index) + " is out of range for " +
                                describe(*this));
  check_gradient(d, row_size(), device, who, "a row's gradient of " + describe(*this));
  device->accumulate(grad_row(index), d.v, row_size());
  non_zero_grads.insert(index);
  nonzero_grad = true;
}

void LookupParameterStorage::accumulate_grads(unsigned count, const unsigned* ids_host, const unsigned*, float* g) {
  for (unsigned k = 0; k < count; ++k)
    if (ids_host[k] >= n)
      throw std::invalid_argument("LookupParameterStorage::accumulate_grads: index " + std::to_string(ids_host[k]) +
                                  " (the " + std::to_string(k) + "th) is out of range for " + describe(*this));
  std::vector<MemoryRun>& rows = row_runs();
  for (unsigned k = 0; k < count; ++k) {
    rows.push_back({grad_row(ids_host[k]), g + std::size_t(k) * row_size(), row_size()});
    non_zero_grads.insert(ids_host[k]);
  }
  device->apply_runs(RunOp::Accumulate, rows.data(), rows.size());
  if (count) nonzero_grad = true;
}

ParameterStorage& Parameter::get_storage() const {
  if (!p)
    throw std::invalid_argument(
        "Parameter: this handle is empty; create parameters with ParameterCollection::add_parameters");
  return *p;
}

void Parameter::set_value(const std::vector<float>& v) { set_values(get_storage(), v, "Parameter::set_value"); }

void Parameter::zero() { get_storage().zero(); }

void Parameter::scale(float a) { get_storage().scale_parameters(a); }

void Parameter::scale_gradient(float a) { get_storage().scale_gradient(a); }

void Parameter::clip_inplace(float left, float right) {
  ParameterStorage& s = get_storage();
  const float unscale = 1.f / s.current_weight_decay();
  clip_values(s, left * unscale, right * unscale, "Parameter::clip_inplace");
}

LookupParameterStorage& LookupParameter::get_storage() const {
  if (!p)
    throw std::invalid_argument("LookupParameter: this handle is empty; create it with "
                                "ParameterCollection::add_lookup_parameters");
  return *p;
}

Tensor LookupParameter::row_value(unsigned i) const {
  LookupParameterStorage& s = get_storage();
  if (i >= s.n)
    throw std::invalid_argument("LookupParameter::row_value: index " + std::to_string(i) + " is out of range for " +
                                describe(s));
  return Tensor(s.dim, s.row(i), s.device);
}

void LookupParameter::initialize(unsigned i, const std::vector<float>& v) const {
  set_row(get_storage(), i, v, "LookupParameter::initialize");
}

void LookupParameter::zero() { get_storage().zero(); }

}  // namespace dynet
