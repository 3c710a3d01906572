#include "trainers/shadow_params.h"

#include <cstring>

#include "dynet_core/device.h"

namespace dynet {

namespace {
Tensor zeroed(const Dim& d, Device* device) {
  Tensor t(d, device->allocate_parameter_floats(d.size()), device);
  std::memset(t.v, 0, d.size() * sizeof(float));
  return t;
}
}  // namespace

ShadowParameters::ShadowParameters(const ParameterStorage& p) : h(zeroed(p.dim, p.device)) {}

ShadowLookupParameters::ShadowLookupParameters(const LookupParameterStorage& lp)
    : all_h(zeroed(lp.all_dim, lp.device)) {
  for (unsigned i = 0; i < lp.n; ++i) h.emplace_back(lp.dim, all_h.v + std::size_t(i) * lp.row_size(), lp.device);
}

std::vector<ShadowParameters> allocate_shadow_parameters(const ParameterCollection& model) {
  std::vector<ShadowParameters> v;
  for (const auto& p : model.parameters_list()) v.emplace_back(*p);
  return v;
}

std::vector<ShadowLookupParameters> allocate_shadow_lookup_parameters(const ParameterCollection& model) {
  std::vector<ShadowLookupParameters> v;
  for (const auto& t : model.lookup_parameters_list()) v.emplace_back(*t);
  return v;
}

}  // namespace dynet
