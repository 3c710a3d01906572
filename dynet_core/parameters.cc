#include "dynet_core/parameters.h"

#include <algorithm>
#include <stdexcept>

#include "dynet_core/device.h"

namespace dynet {

namespace {

/// "the <kind> '/name'", or for a parameter the user did not name (its last part is the "_N" a
/// collection makes up) "an unnamed <kind>", with the collection when it is not the root.
std::string describe_name(const std::string& full, const char* kind) {
  const std::size_t slash = full.rfind('/');
  const std::string collection = full.substr(0, slash + 1), last = full.substr(slash + 1);
  const bool unnamed = last.size() > 1 && last[0] == '_' && last.find_first_not_of("0123456789", 1) == std::string::npos;
  if (!unnamed) return std::string("the ") + kind + " '" + full + "'";
  return std::string("an unnamed ") + kind + (collection == "/" ? "" : " of the collection '" + collection + "'");
}

}  // namespace

std::string describe(const ParameterStorage& s) { return describe_name(s.name, "Parameter") + " of dim " + to_string(s.dim); }

std::string describe(const LookupParameterStorage& s) {
  return describe_name(s.name, "LookupParameter") + " of " + std::to_string(s.n) + " rows of dim " + to_string(s.dim);
}

void ParameterStorage::zero_grad() { device->zero(g.v, size()); }

void ParameterStorage::scale_parameters(float a) { device->scale(values.v, a, size()); }

void LookupParameterStorage::scale_parameters(float a) { device->scale(all_values.v, a, all_values.d.size()); }

void LookupParameterStorage::zero_grad() {
  if (all_touched) {
    device->zero(all_grads.v, std::size_t(n) * row_size());
  } else {
    std::vector<MemoryRun> rows;
    rows.reserve(touched.size());
    for (unsigned i : touched) rows.push_back({grad_row(i), nullptr, row_size()});
    device->apply_runs(RunOp::Zero, rows.data(), rows.size());
  }
  for (unsigned i : touched) touched_mask[i] = 0;
  touched.clear();
  all_touched = false;
}

ParameterStorage& Parameter::get_storage() const {
  if (!p)
    throw std::invalid_argument(
        "Parameter: this handle is empty; create parameters with ParameterCollection::add_parameters");
  return *p;
}

void Parameter::set_value(const std::vector<float>& v) {
  ParameterStorage& s = get_storage();
  if (v.size() != s.size())
    throw std::invalid_argument("Parameter::set_value: " + describe(s) + " holds " + std::to_string(s.size()) +
                                " values, got " +
                                std::to_string(v.size()) + " values");
  s.device->to_device(s.values.v, v.data(), v.size());
}

void Parameter::zero() {
  ParameterStorage& s = get_storage();
  s.device->zero(s.values.v, s.size());
}

void Parameter::scale(float a) { get_storage().scale_parameters(a); }

void Parameter::scale_gradient(float a) {
  ParameterStorage& s = get_storage();
  s.device->scale(s.g.v, a, s.size());
}

void Parameter::clip_inplace(float left, float right) {
  if (!(left <= right))
    throw std::invalid_argument("Parameter::clip_inplace: left " + std::to_string(left) +
                                " must not exceed right " + std::to_string(right));
  ParameterStorage& s = get_storage();
  std::vector<float> host(s.size());
  s.device->to_host(host.data(), s.values.v, host.size());
  for (float& x : host) x = std::min(right, std::max(left, x));
  s.device->to_device(s.values.v, host.data(), host.size());
}

LookupParameterStorage& LookupParameter::get_storage() const {
  if (!p)
    throw std::invalid_argument(
        "LookupParameter: this handle is empty; create it with "
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

void LookupParameter::initialize(unsigned i, const std::vector<float>& v) {
  LookupParameterStorage& s = get_storage();
  if (i >= s.n)
    throw std::invalid_argument("LookupParameter::initialize: index " + std::to_string(i) + " is out of range for " +
                                describe(s));
  if (v.size() != s.row_size())
    throw std::invalid_argument("LookupParameter::initialize: a row of " + describe(s) + " holds " +
                                std::to_string(s.row_size()) + " values, got " + std::to_string(v.size()));
  s.device->to_device(s.row(i), v.data(), v.size());
}

void LookupParameter::zero() {
  LookupParameterStorage& s = get_storage();
  s.device->zero(s.all_values.v, s.all_values.d.size());
}

}  // namespace dynet
