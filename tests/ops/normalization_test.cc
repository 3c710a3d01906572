#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include "dynet_core/graph.h"
#include "dynet_core/ops/all_ops.h"
#include "support/gradient_check.h"

using namespace dynet;

TEST_CASE("layer_norm gives each batch element zero mean and unit variance, then gain and bias", "[ops][layer_norm]") {
  ComputationGraph cg;
  const Expression x = input(cg, Dim({4}, 2), {1.f, 2.f, 3.f, 6.f, -1.f, -1.f, 0.f, 2.f});
  const Expression y = layer_norm(x, input(cg, Dim({4}), {1.f, 1.f, 1.f, 1.f}), zeros(cg, Dim({4})));
  const std::vector<float> v = as_vector(cg.forward(y));
  for (unsigned b = 0; b < 2; ++b) {
    double mean = 0, var = 0;
    for (unsigned k = 0; k < 4; ++k) mean += v[b * 4 + k] / 4;
    for (unsigned k = 0; k < 4; ++k) var += (v[b * 4 + k] - mean) * (v[b * 4 + k] - mean) / 4;
    CHECK(mean == Approx(0).margin(1e-6));
    CHECK(var == Approx(1).epsilon(1e-4));
  }
  const Expression shifted =
      layer_norm(x, input(cg, Dim({4}), {2.f, 2.f, 2.f, 2.f}), input(cg, Dim({4}), {1.f, 1.f, 1.f, 1.f}));
  const std::vector<float> s = as_vector(cg.forward(shifted));
  for (std::size_t k = 0; k < v.size(); ++k) CHECK(s[k] == Approx(2 * v[k] + 1));
}

TEST_CASE("layer_norm gradients", "[ops][layer_norm]") {
  ParameterCollection model;
  Parameter g = model.add_parameters({5}, ParameterInitUniform(0.5f, 1.5f));
  Parameter b = model.add_parameters({5});
  LookupParameter x = model.add_lookup_parameters(2, {5});
  ComputationGraph cg;
  const Expression y = layer_norm(lookup(cg, x, std::vector<unsigned>{0, 1}), parameter(cg, g), parameter(cg, b));
  test_support::check_gradients(model, cg, test_support::weighted_sum(cg, {y}, 3));
}

TEST_CASE("layer_norm rejects a gain or bias of another size", "[ops][layer_norm]") {
  ComputationGraph cg;
  const Expression x = zeros(cg, Dim({4}));
  CHECK_THROWS_WITH(layer_norm(x, zeros(cg, Dim({3})), zeros(cg, Dim({4}))),
                    Catch::Contains("layer_norm") && Catch::Contains("{3}"));
  CHECK_THROWS_WITH(layer_norm(zeros(cg, Dim({4, 2})), x, zeros(cg, Dim({4, 3}))),
                    Catch::Contains("layer_norm") && Catch::Contains("{4,3}"));
  // As DyNet's cmult: a gain of one row, or a scalar, broadcasts over a matrix too.
  const Expression m = input(cg, Dim({2, 2}), {1.f, 2.f, 3.f, 5.f});
  const std::vector<float> row =
      as_vector(cg.forward(layer_norm(m, input(cg, Dim({1, 2}), {1.f, 2.f}), zeros(cg, Dim({1})))));
  const std::vector<float> plain = as_vector(cg.forward(layer_norm(m, ones(cg, Dim({2})), zeros(cg, Dim({2})))));
  REQUIRE(row.size() == 4);
  for (unsigned k = 0; k < 4; ++k) CHECK(row[k] == Approx(plain[k] * (k < 2 ? 1.f : 2.f)));
}

TEST_CASE("layer_norm of a matrix normalizes all its elements, the gain and bias broadcast over its columns",
          "[ops][layer_norm]") {
  // DyNet's layer_norm: mean_elems and std_elems of x, then cmult(g, .) + b broadcast.
  ComputationGraph cg;
  const std::vector<float> values{1.f, 2.f, 3.f, 6.f, -1.f, 0.f};
  const Expression x = input(cg, Dim({3, 2}), values);
  const Expression g = input(cg, Dim({3}), {1.f, 2.f, 3.f}), b = input(cg, Dim({3}), {0.f, 1.f, -1.f});
  const std::vector<float> y = as_vector(cg.forward(layer_norm(x, g, b)));
  double mean = 0, var = 0;
  for (float v : values) mean += v / 6;
  for (float v : values) var += (v - mean) * (v - mean) / 6;
  const float gains[3] = {1.f, 2.f, 3.f}, biases[3] = {0.f, 1.f, -1.f};
  REQUIRE(y.size() == 6);
  for (unsigned k = 0; k < 6; ++k)
    CHECK(y[k] == Approx(gains[k % 3] * (values[k] - mean) / std::sqrt(var) + biases[k % 3]).epsilon(1e-4));
}
