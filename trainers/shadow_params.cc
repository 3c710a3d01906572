#include "trainers/shadow_params.h"

#include "dynet_core/device/device.h"

namespace dynet {

namespace {
float* zeroed(std::size_t n, Device* device) {
  float* p = device->allocate_parameter_floats(n);
  device->zero(p, n);
  return p;
}
}  // namespace

ShadowParameters::ShadowParameters(const ParameterStorage& p) : ShadowParameters(p, zeroed(p.size(), p.device)) {}

ShadowLookupParameters::ShadowLookupParameters(const LookupParameterStorage& lp)
    : ShadowLookupParameters(lp, zeroed(lp.all_dim.size(), lp.device)) {}

ShadowLookupParameters::ShadowLookupParameters(const LookupParameterStorage& lp, float* memory)
    : all_h(lp.all_dim, memory, lp.device) {
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
