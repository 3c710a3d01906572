#pragma once
// DyNet's shadow parameters: one extra zeroed tensor per parameter (or per lookup table, with a
// view per row), in the parameter's pool, for update rules written outside the Trainer class.

#include <vector>

#include "dynet_core/param_collection.h"

namespace dynet {

struct ShadowParameters {
  ShadowParameters() = default;
  explicit ShadowParameters(const ParameterStorage& p);
  /// A view of `memory` (p.size() floats) instead of a fresh block.
  ShadowParameters(const ParameterStorage& p, float* memory) : h(p.dim, memory, p.device) {}
  Tensor h;
};

struct ShadowLookupParameters {
  ShadowLookupParameters() = default;
  explicit ShadowLookupParameters(const LookupParameterStorage& lp);
  /// A view of `memory` (the table's size in floats) instead of a fresh block.
  ShadowLookupParameters(const LookupParameterStorage& lp, float* memory);
  Tensor all_h;           ///< the whole table
  std::vector<Tensor> h;  ///< row i of all_h
};

/// One per element of model.parameters_list() / lookup_parameters_list().
std::vector<ShadowParameters> allocate_shadow_parameters(const ParameterCollection& model);
std::vector<ShadowLookupParameters> allocate_shadow_lookup_parameters(const ParameterCollection& model);

}  // namespace dynet
