#include "dynet_core/parameters.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>

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

void ParameterStorage::zero_grad() { std::memset(g.v, 0, size() * sizeof(float)); }

void ParameterStorage::scale_parameters(float a) {
  for (std::size_t k = 0; k < size(); ++k) values.v[k] *= a;
}

void LookupParameterStorage::scale_parameters(float a) {
  for (std::size_t k = 0; k < all_values.d.size(); ++k) all_values.v[k] *= a;
}

void LookupParameterStorage::zero_grad() {
  if (all_touched) {
    std::memset(all_grads.v, 0, std::size_t(n) * row_size() * sizeof(float));
  } else {
    for (unsigned i : touched) std::memset(grad_row(i), 0, row_size() * sizeof(float));
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
  std::copy(v.begin(), v.end(), s.values.v);
}

void Parameter::zero() {
  ParameterStorage& s = get_storage();
  std::fill(s.values.v, s.values.v + s.size(), 0.f);
}

void Parameter::scale(float a) { get_storage().scale_parameters(a); }

void Parameter::scale_gradient(float a) {
  ParameterStorage& s = get_storage();
  for (std::size_t k = 0; k < s.size(); ++k) s.g.v[k] *= a;
}

void Parameter::clip_inplace(float left, float right) {
  if (!(left <= right))
    throw std::invalid_argument("Parameter::clip_inplace: left " + std::to_string(left) +
                                " must not exceed right " + std::to_string(right));
  ParameterStorage& s = get_storage();
  for (std::size_t k = 0; k < s.size(); ++k) s.values.v[k] = std::min(right, std::max(left, s.values.v[k]));
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
  std::copy(v.begin(), v.end(), s.row(i));
}

void LookupParameter::zero() {
  LookupParameterStorage& s = get_storage();
  std::fill(s.all_values.v, s.all_values.v + s.all_values.d.size(), 0.f);
}

}  // namespace dynet
