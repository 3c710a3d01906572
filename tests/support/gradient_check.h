#pragma once
// Numeric gradient checks through whole builders: backward's gradient of a scalar loss for every
// value of every parameter and lookup table of a model, against central differences. The graph
// is built once and recomputed by forward after each perturbation (random masks are fixed per
// node, so dropout is checked too).

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "dynet_core/graph.h"
#include "dynet_core/ops/all_ops.h"
#include "dynet_core/param_collection.h"
#include "dynet_core/tensor_tools.h"
#include "support/sample_count.h"

namespace test_support {

using namespace dynet;

/// E = sum over ys of <w, y> with fixed random weights w, summed over batch elements. Random
/// weights leave no symmetric blind spot (a plain sum would hide errors that cancel).
inline Expression weighted_sum(ComputationGraph& cg, const std::vector<Expression>& ys, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> unit(-1.f, 1.f);
  std::vector<Expression> terms;
  for (const Expression& y : ys) {
    std::vector<float> w(y.dim().size());
    for (float& v : w) v = unit(rng);
    terms.push_back(sum_batches(dot_product(input(cg, y.dim(), w), y)));
  }
  return sum(terms);
}

namespace detail {

inline void check_values(const std::string& what, const Tensor& values, const float* analytic, ComputationGraph& cg,
                         const Expression& loss) {
  const std::size_t n = values.d.size();
  const std::size_t stride = 1 + n / sample_count(16);  // about 16 values per parameter, 2 guarded
  for (std::size_t k = 0; k < n; k += stride) {
    const int at = static_cast<int>(k);
    const float x0 = TensorTools::access_element(values, at);
    const float h = 1e-2f;
    TensorTools::set_element(values, at, x0 + h);
    const double plus = as_scalar(cg.forward(loss));
    TensorTools::set_element(values, at, x0 - h);
    const double minus = as_scalar(cg.forward(loss));
    TensorTools::set_element(values, at, x0);
    const double numeric = (plus - minus) / (2.0 * h);
    INFO(what << " element " << k << ": numeric " << numeric << ", analytic " << analytic[k]);
    CHECK(std::fabs(numeric - analytic[k]) <=
          2e-3 + 2e-2 * std::max(std::fabs(numeric), double(std::fabs(analytic[k]))));
  }
}

}  // namespace detail

/// The outputs of a new sequence of `rnn` in cg over batches of rows of `table`, one batch a step.
template <class Builder>
std::vector<Expression> run_sequence(Builder& rnn, ComputationGraph& cg, const LookupParameter& table,
                                     const std::vector<std::vector<unsigned>>& steps) {
  rnn.new_graph(cg);
  rnn.start_new_sequence();
  std::vector<Expression> outputs;
  for (const std::vector<unsigned>& ids : steps) outputs.push_back(rnn.add_input(lookup(cg, table, ids)));
  return outputs;
}

/// Checks the gradient of `loss` (a scalar of cg) for every parameter and lookup table of model.
inline void check_gradients(ParameterCollection& model, ComputationGraph& cg, const Expression& loss) {
  model.reset_gradient();
  cg.forward(loss);
  cg.backward(loss);
  for (const auto& p : model.parameters_list()) {
    const std::vector<float> analytic = as_vector(p->g);
    detail::check_values(p->name, p->values, analytic.data(), cg, loss);
  }
  for (const auto& p : model.lookup_parameters_list()) {
    const std::vector<float> analytic = as_vector(p->all_grads);
    detail::check_values(p->name, p->all_values, analytic.data(), cg, loss);
  }
  cg.forward(loss);
}

}  // namespace test_support
