#pragma once
// The inputs of one numeric gradient check. An op's GradCheck::build draws random shapes and
// values from a CheckCase and builds one instance of the op; the test harness then perturbs every
// differentiable variable the case handed out and compares numeric and analytic gradients.

#include <cstdint>
#include <deque>
#include <optional>
#include <random>
#include <vector>

#include "dynet_core/expression.h"
#include "dynet_core/param_collection.h"

namespace dynet {

class ComputationGraph;

class CheckCase {
 public:
  CheckCase(ComputationGraph& cg, std::uint64_t seed);
  /// Shapes and integers as CheckCase(cg, seed) draws them, but input values from `value_seed`:
  /// instances of one op with equal signatures and data of their own.
  CheckCase(ComputationGraph& cg, std::uint64_t seed, std::uint64_t value_seed);

  ComputationGraph& cg;

  /// A random integer in [lo, hi].
  unsigned uniform(unsigned lo, unsigned hi);
  float real(float lo, float hi);
  /// A batch size: 1 about half the time, otherwise 2 or 3.
  unsigned batch();
  /// A random shape with nd in [min_nd, max_nd], sizes in [1, 4], batch size bd.
  Dim shape(unsigned min_nd, unsigned max_nd, unsigned bd = 1);

  /// A differentiable input with values uniform on [lo, hi].
  Expression input(const Dim& d, float lo = -1.f, float hi = 1.f);
  /// A differentiable input whose elements are at least 0.3 apart (a shuffled grid of step 0.5
  /// plus noise in [-0.1, 0.1]), so that a maximum, a sort order or a support never changes
  /// within a numeric-gradient step.
  Expression distinct_input(const Dim& d);
  /// An input the check treats as a constant (no gradient is compared for it).
  Expression constant_input(const Dim& d, float lo = -1.f, float hi = 1.f);
  /// A differentiable parameter expression.
  Expression parameter(const Dim& d, float lo = -1.f, float hi = 1.f);
  Parameter constant_parameter(const Dim& d);
  /// A lookup table with values uniform on [-1, 1]; `differentiable` adds it to the variables.
  LookupParameter lookup_parameter(unsigned rows, const Dim& d, bool differentiable = true);

  enum class Kind { Input, Parameter, Table };
  struct Variable {
    Kind kind;
    float* values;
    std::size_t n;
    VariableIndex node;  ///< for inputs
    float* grad;         ///< for parameters and tables
  };
  const std::vector<Variable>& variables() const { return variables_; }
  ParameterCollection& model() { return model_; }

 private:
  std::vector<float>& random_values(std::size_t n, float lo, float hi);

  std::mt19937_64 rng_;
  std::optional<std::mt19937_64> value_rng_;  // input values, when not drawn from rng_
  ParameterCollection model_;
  std::deque<std::vector<float>> inputs_;
  std::vector<Variable> variables_;
};

}  // namespace dynet
