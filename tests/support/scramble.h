#pragma once
// Distinct, non-trivial values in every parameter and lookup table of a model (biases included),
// so that a test against written-out equations exercises every term.

#include <cmath>
#include <vector>

#include "dynet_core/param_collection.h"
#include "dynet_core/tensor.h"

namespace test_support {

inline void scramble(dynet::ParameterCollection& model) {
  float s = 0.3f;
  auto next = [&s](std::vector<float>& v) {
    for (float& x : v) x = (s = std::fmod(s * 7.13f + 0.37f, 2.f)) - 1.f;
  };
  for (const auto& p : model.parameters_list()) {
    std::vector<float> v(p->size());
    next(v);
    dynet::Parameter(p).set_value(v);
  }
  for (const auto& p : model.lookup_parameters_list()) {
    std::vector<float> v(p->all_values.d.size());
    next(v);
    dynet::set_from_host(p->all_values, v.data());
  }
}

}  // namespace test_support
