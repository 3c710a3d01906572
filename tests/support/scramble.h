#pragma once
// Distinct, non-trivial values in every parameter of a model (biases included), so that a test
// against written-out equations exercises every term.

#include <cmath>
#include <vector>

#include "dynet_core/param_collection.h"

namespace test_support {

inline void scramble(dynet::ParameterCollection& model) {
  float s = 0.3f;
  for (const auto& p : model.parameters_list()) {
    std::vector<float> v(p->size());
    for (float& x : v) x = (s = std::fmod(s * 7.13f + 0.37f, 2.f)) - 1.f;
    dynet::Parameter(p).set_value(v);
  }
}

}  // namespace test_support
