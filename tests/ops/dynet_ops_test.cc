// Values of the ops DyNet programs use, from DyNet's own test cases where it has them and from
// hand computation otherwise; and gradient checks of the ops written as compositions (their
// parts are registry rows, but the wiring is checked here).

#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <vector>

#include "dynet_core/graph.h"
#include "dynet_core/ops/all_ops.h"
#include "dynet_core/param_collection.h"
#include "support/gradient_check.h"

using namespace dynet;

namespace {

const std::vector<float> kBatchVals{1.1f, 2.6f, 3.3f, 4.0f, 5.1f, 6.6f};  // DyNet's batch_vals

void require_close(const std::vector<float>& got, const std::vector<float>& expected, float eps = 1e-5f) {
  REQUIRE(got.size() == expected.size());
  for (std::size_t k = 0; k < got.size(); ++k) {
    INFO("element " << k);
    CHECK(got[k] == Approx(expected[k]).margin(eps));
  }
}

}  // namespace

TEST_CASE("trigonometric, hyperbolic and lgamma overloads match the C library", "[ops][elementwise]") {
  ComputationGraph cg;
  const std::vector<float> v{-0.6f, 0.2f, 0.7f};
  const Expression x = input(cg, Dim({3}), v);
  const Expression big = input(cg, Dim({3}), {1.5f, 2.f, 3.5f});
  struct Case {
    Expression y;
    float (*f)(float);
    const std::vector<float>* in;
  };
  const std::vector<float> bv{1.5f, 2.f, 3.5f};
  for (const Case& c :
       {Case{tan(x), tanf, &v}, Case{asin(x), asinf, &v}, Case{acos(x), acosf, &v}, Case{atan(x), atanf, &v},
        Case{sinh(x), sinhf, &v}, Case{cosh(x), coshf, &v}, Case{asinh(x), asinhf, &v}, Case{acosh(big), acoshf, &bv},
        Case{atanh(x), atanhf, &v}, Case{lgamma(big), lgammaf, &bv}}) {
    const std::vector<float> y = as_vector(cg.forward(c.y));
    for (unsigned k = 0; k < 3; ++k) CHECK(y[k] == Approx(c.f((*c.in)[k])).epsilon(1e-5));
  }
}

TEST_CASE("lgamma's gradient is the digamma function, also below zero", "[ops][elementwise]") {
  ComputationGraph cg;
  const Expression x = input(cg, Dim({3}), {1.f, 0.5f, -1.2f});
  cg.backward(sum_elems(lgamma(x)), true);
  // digamma(1) = -Euler's constant; digamma(1/2) = -gamma - 2 ln 2; digamma(-1.2) by reflection.
  require_close(as_vector(x.gradient()), {-0.5772157f, -1.9635100f, 4.8683445f}, 1e-4f);
}

TEST_CASE("round, ceil and floor: DyNet's values, and the two gradient modes", "[ops][elementwise]") {
  ComputationGraph cg;
  const Expression x = input(cg, Dim({3}, 2), kBatchVals);
  CHECK(as_vector(cg.forward(round(x, zero_gradient))) == std::vector<float>{1, 3, 3, 4, 5, 7});
  CHECK(as_vector(cg.forward(ceil(x, zero_gradient))) == std::vector<float>{2, 3, 4, 4, 6, 7});
  CHECK(as_vector(cg.forward(floor(x, zero_gradient))) == std::vector<float>{1, 2, 3, 4, 5, 6});
  const Expression w = input(cg, Dim({3}, 2), {1, 2, 3, 4, 5, 6});
  cg.backward(sum_batches(dot_product(floor(x, straight_through_gradient), w)), true);
  CHECK(as_vector(x.gradient()) == std::vector<float>{1, 2, 3, 4, 5, 6});
  cg.backward(sum_batches(dot_product(round(x, zero_gradient), w)), true);
  CHECK(as_vector(x.gradient()) == std::vector<float>(6, 0.f));
}

TEST_CASE("argmax: DyNet's forward and both backward cases", "[ops][argmax]") {
  ComputationGraph cg;
  const Expression x = input(cg, Dim({3}, 2), kBatchVals);
  const Expression y = argmax(x, zero_gradient);
  CHECK(as_vector(cg.forward(y)) == std::vector<float>{0, 0, 1, 0, 0, 1});
  cg.backward(sum_batches(squared_norm(y)), true);
  CHECK(as_vector(x.gradient()) == std::vector<float>(6, 0.f));
  const Expression x2 = input(cg, Dim({3}, 2), kBatchVals);
  cg.backward(sum_batches(dot_product(argmax(x, straight_through_gradient), x2)), true);
  CHECK(as_vector(x.gradient()) == kBatchVals);
}

TEST_CASE("moments and standard deviations over dimensions, elements and batches", "[ops][moments]") {
  ComputationGraph cg;
  // DyNet's std_dim_value: param_cube1 as {3, 3} x 3.
  const std::vector<float> cube{.051f, .062f,  .073f,  .052f,  .062f,  .072f,  .053f,  .063f,  .073f,
                                .111f, -.122f, -.033f, -.112f, -.022f, -.132f, -.113f, -.123f, -.133f,
                                .211f, .222f,  .233f,  .212f,  .222f,  .232f,  .213f,  .223f,  .233f};
  const Expression c = input(cg, Dim({3, 3}, 3), cube);
  CHECK(as_scalar(cg.forward(mean_dim(std_dim(c, {0}, true), {0}))) == Approx(0.128319368).epsilon(1e-3));

  const Expression x = input(cg, Dim({2, 2}, 2), {1, 2, 3, 4, -1, 0, 1, 6});
  require_close(as_vector(cg.forward(mean_dim(x, {0}))), {1.5f, 3.5f, -0.5f, 3.5f});
  require_close(as_vector(cg.forward(mean_dim(x, {0}, false, 4))), {0.75f, 1.75f, -0.25f, 1.75f});  // masked n
  require_close(as_vector(cg.forward(moment_dim(x, {1}, 2))), {5.f, 10.f, 1.f, 18.f});
  require_close(as_vector(cg.forward(moment_elems(x, 3))), {25.f, 54.f});
  require_close(as_vector(cg.forward(moment_batches(x, 1))), {0.f, 1.f, 2.f, 5.f});
  require_close(as_vector(cg.forward(std_elems(x))), {std::sqrt(1.25f), std::sqrt(7.25f)});
  require_close(as_vector(cg.forward(std_batches(x))), {1.f, 1.f, 1.f, 1.f});
  require_close(as_vector(cg.forward(sum_rows(x))), {3.f, 7.f, -1.f, 7.f});
  require_close(as_vector(cg.forward(sum_cols(x))), {4.f, 6.f, 0.f, 6.f});
  require_close(as_vector(cg.forward(average_cols(x))), {2.f, 3.f, 0.f, 3.f});
  require_close(as_vector(cg.forward(cumsum(x, 0))), {1, 3, 3, 7, -1, -1, 1, 7});
  require_close(as_vector(cg.forward(cumsum(x, 1))), {1, 2, 4, 6, -1, 0, 0, 6});
  CHECK_THROWS_WITH(std_dim(x, {9}), Catch::Contains("std_dim") && Catch::Contains("out of range"));
  CHECK_THROWS_WITH(cumsum(x, 9), Catch::Contains("cumsum"));
}

TEST_CASE("products and column concatenations have DyNet's shapes, one column included", "[ops][shapes]") {
  ComputationGraph cg;
  const Expression W = input(cg, Dim({2, 3}), std::vector<float>(6, 1.f));
  const Expression v = input(cg, Dim({3}, 4), std::vector<float>(12, 1.f));
  const Expression column = input(cg, Dim({3, 1}, 4), std::vector<float>(12, 1.f));
  // MatrixMultiply: a vector times a vector, a matrix (of one column too) otherwise
  CHECK((W * v).dim().ndims() == 1);
  CHECK((W * column).dim().ndims() == 2);
  CHECK((W * column).dim() == Dim({2, 1}, 4));
  // AffineTransform: the bias's shape
  const Expression b = input(cg, Dim({2}), std::vector<float>(2, 0.f));
  const Expression b_column = input(cg, Dim({2, 1}), std::vector<float>(2, 0.f));
  CHECK(affine_transform({b, W, column}).dim().ndims() == 1);
  CHECK(affine_transform({b_column, W, v}).dim().ndims() == 2);
  // ConcatenateColumns: a matrix, of one column for one vector
  CHECK(concatenate_cols({input(cg, Dim({3}), std::vector<float>(3, 1.f))}).dim().ndims() == 2);
  CHECK(concatenate({v}).i == v.i);  // one expression along one of its dimensions is itself
  // CwiseSum and its kin: the larger number of dimensions, trailing ones of size 1 kept, either order
  const Expression vector4 = input(cg, Dim({4}), std::vector<float>(4, 1.f));
  const Expression column4 = input(cg, Dim({4, 1}), std::vector<float>(4, 1.f));
  CHECK((vector4 + column4).dim().ndims() == 2);
  CHECK((column4 + vector4).dim().ndims() == 2);
  CHECK(cmult(vector4, column4).dim().ndims() == 2);
  CHECK((vector4 + vector4).dim().ndims() == 1);
  const Expression batched = input(cg, Dim({4, 1}, 3), std::vector<float>(12, 1.f));
  CHECK((batched + vector4).dim().ndims() == 2);
  CHECK((batched + vector4).dim() == Dim({4, 1}, 3));
}

// Each next to a call DyNet refuses: the refusals (messages_test.cc) go no further than DyNet's.
TEST_CASE("what DyNet accepts at the edge of what it refuses", "[ops][shapes]") {
  ComputationGraph cg;
  const Expression v = input(cg, Dim({3}), {1.f, 2.f, 3.f});
  const Expression m = input(cg, Dim({2, 3}), {1.f, 2.f, 3.f, 4.f, 5.f, 6.f});
  const Expression batch = input(cg, Dim({3}, 3), std::vector<float>(9, 1.f));
  // PickElement: one index (pval) serves a batch; a vector (pvals) of one or of n on one element.
  CHECK(pick(batch, 1u).dim().bd == 3);
  CHECK(pick(v, std::vector<unsigned>{1}).dim().bd == 1);
  CHECK(pick(v, std::vector<unsigned>{0, 1, 2}).dim().bd == 3);
  // DyNet keeps a vector reduced along its only dimension as {1}: dimension 0 is still there.
  const Expression scalar = pick(v, 1u);
  CHECK(as_scalar(cg.forward(softmax(scalar, 0))) == Approx(1.f));
  CHECK(as_scalar(cg.forward(max_dim(scalar, 0))) == Approx(2.f));
  CHECK(as_scalar(cg.forward(sum_dim(scalar, {0}))) == Approx(2.f));
  CHECK(as_scalar(cg.forward(pick(scalar, 0u, 0))) == Approx(2.f));
  // CumulativeSum: d <= nd, one past the last dimension sums runs of one.
  require_close(as_vector(cg.forward(cumsum(m, 2))), {1.f, 2.f, 3.f, 4.f, 5.f, 6.f});
  // Transpose: a longer permutation lays a vector along another dimension.
  CHECK(transpose(v, {2, 1, 0}).dim() == Dim({1, 1, 3}));
  require_close(as_vector(cg.forward(transpose(v, {2, 1, 0}))), {1.f, 2.f, 3.f});
  // AverageColumns takes a vector as one column.
  require_close(as_vector(cg.forward(average_cols(v))), {1.f, 2.f, 3.f});
  CHECK(average_cols(v).dim() == Dim({3}));
  // Transpose: the default permutation of a vector laid along dimension 0 or 1 of three; one that
  // would leave out its values is refused.
  const Expression laid = input(cg, Dim({3, 1, 1}), {1.f, 2.f, 3.f});
  CHECK(transpose(laid).dim().ndims() == 2);
  CHECK(transpose(laid).dim() == Dim({1, 3}));
  require_close(as_vector(cg.forward(transpose(laid))), {1.f, 2.f, 3.f});
  CHECK(transpose(input(cg, Dim({1, 3, 1}), {1.f, 2.f, 3.f})).dim() == Dim({3, 1}));
  CHECK_THROWS_WITH(transpose(input(cg, Dim({1, 1, 3}), {1.f, 2.f, 3.f})), Catch::Contains("permutation"));
}

TEST_CASE("dims as DyNet reports them: pow and a list's logsumexp drop trailing 1s, maxpooling2d keeps x's",
          "[ops][shapes]") {
  // Pow::dim_forward and LogSumExp::dim_forward truncate; MaxPooling2D gives as many dimensions as x.
  ComputationGraph cg;
  const Expression column = input(cg, Dim({3, 1}), {1.f, 2.f, 3.f});
  const Expression squared = pow(column, input(cg, 2.f));
  CHECK(squared.dim().ndims() == 1);
  require_close(as_vector(cg.forward(squared)), {1.f, 4.f, 9.f});
  CHECK(logsumexp({column, column}).dim().ndims() == 1);
  const Expression plane = input(cg, Dim({4, 4}), std::vector<float>(16, 1.f));
  CHECK(maxpooling2d(plane, {2, 2}, {2, 2}).dim().ndims() == 2);
  CHECK(maxpooling2d(plane, {2, 2}, {2, 2}).dim() == Dim({2, 2}));
  const Expression planes = input(cg, Dim({4, 4, 2}), std::vector<float>(32, 1.f));
  CHECK(maxpooling2d(planes, {2, 2}, {2, 2}).dim().ndims() == 3);
}

TEST_CASE("sparse input, one_hot and zeroes", "[ops][leaves]") {
  ComputationGraph cg;
  require_close(as_vector(cg.forward(input(cg, Dim({3}, 2), {0u, 4u}, {1.f, 1.f}, 0.5f))), {1, .5f, .5f, .5f, 1, .5f});
  CHECK_THROWS_WITH(input(cg, Dim({3}), {3u}, {1.f}), Catch::Contains("input") && Catch::Contains("sparse id 3"));
  CHECK_THROWS_WITH(input(cg, Dim({3}), {0u, 1u}, {1.f}), Catch::Contains("input"));
  std::vector<float> hot(10, 0.f);
  hot[5] = 1;
  CHECK(as_vector(cg.forward(one_hot(cg, 10, 5))) == hot);
  const Expression batched = one_hot(cg, 3, std::vector<unsigned>{1, 2});
  CHECK(batched.dim() == Dim({3}, 2));
  CHECK(as_vector(cg.forward(batched)) == std::vector<float>{0, 1, 0, 0, 0, 1});
  CHECK_THROWS_WITH(one_hot(cg, 3, 3), Catch::Contains("one_hot"));
  CHECK(as_vector(cg.forward(zeroes(cg, Dim({2})))) == std::vector<float>{0, 0});
}

TEST_CASE("strided_select takes numpy-style ranges per dimension, the batch last", "[ops][strided_select]") {
  ComputationGraph cg;
  std::vector<float> v(27);
  for (unsigned k = 0; k < 27; ++k) v[k] = float(k);
  const Expression x = input(cg, Dim({3, 3, 3}), v);
  const Expression y = strided_select(x, {2, 1, 1}, {0, 1, 0}, {3, 3, 2});
  REQUIRE(y.dim() == Dim({2, 2, 2}));
  std::vector<float> expected;
  for (unsigned d = 0; d < 2; ++d)
    for (unsigned c = 1; c < 3; ++c)
      for (unsigned r = 0; r < 3; r += 2) expected.push_back(float(r + 3 * c + 9 * d));
  CHECK(as_vector(cg.forward(y)) == expected);
  CHECK(as_vector(cg.forward(strided_select(x, {}))) == v);
  const Expression b = input(cg, Dim({2}, 4), {0, 1, 2, 3, 4, 5, 6, 7});
  const Expression picked = strided_select(b, {1, 2}, {1, 1});
  REQUIRE(picked.dim() == Dim({1}, 2));
  CHECK(as_vector(cg.forward(picked)) == std::vector<float>{3, 7});
  CHECK_THROWS_WITH(strided_select(x, {0}), Catch::Contains("strided_select") && Catch::Contains("stride 0"));
  CHECK(as_vector(cg.forward(pickrange(input(cg, Dim({4}), {1, 2, 3, 4}), 1, 3))) == std::vector<float>{2, 3});
}

TEST_CASE("binary_log_loss at predictions of 0 and 1: DyNet's values and gradients", "[ops][losses]") {
  // DyNet's test-nodes binary_log_loss_edgecases, and its backward rule
  struct Case {
    float x, t, loss, dx;
  };
  const float min_loss = -std::log(std::numeric_limits<float>::min());
  for (const Case& k :
       {Case{0, 0, 0, 0}, Case{1, 1, 0, 0}, Case{0, 1, min_loss, -1 / std::numeric_limits<float>::min()},
        Case{1, 0, min_loss, 1 / (1 - 0.9999999f)}, Case{0, 0.5f, min_loss, 0}, Case{1, 0.5f, min_loss, 0},
        Case{0.5f, 0.5f, std::log(2.f), 0}}) {
    INFO("x " << k.x << " t " << k.t);
    ComputationGraph cg;
    ParameterCollection pc;
    Parameter p = pc.add_parameters({1}, ParameterInitConst(k.x));
    const Expression loss = binary_log_loss(parameter(cg, p), input(cg, k.t));
    CHECK(as_scalar(cg.forward(loss)) == Approx(k.loss).epsilon(1e-6));
    cg.backward(loss);
    if (k.t == 0.5f && k.x != k.t) continue;  // DyNet's gradient there is that of its clamped x; checked below
    CHECK(as_scalar(p.get_storage().g) == Approx(k.dx).epsilon(1e-6));
  }
  ComputationGraph cg;
  ParameterCollection pc;
  Parameter p = pc.add_parameters({1}, ParameterInitConst(0.f));
  const Expression loss = binary_log_loss(parameter(cg, p), input(cg, 0.5f));
  cg.forward(loss);
  cg.backward(loss);
  const float x = std::numeric_limits<float>::min();
  CHECK(as_scalar(p.get_storage().g) == Approx(0.5f / (1 - x) - 0.5f / x).epsilon(1e-6));
}

TEST_CASE("distances and losses: l1, huber, pairwise rank, poisson, hinge_dim", "[ops][losses]") {
  ComputationGraph cg;
  const Expression x = input(cg, Dim({3}, 2), {1, -2, 3, 0.5f, 0, 0}), zero = zeros(cg, Dim({3}));
  require_close(as_vector(cg.forward(l1_distance(x, zero))), {6.f, 0.5f});
  const float c = 1.345f;
  // DyNet's: a^2 below c, c (2a - c) from c on.
  require_close(as_vector(cg.forward(huber_distance(x, zero))), {1.f + c * (2 * 2 - c) + c * (2 * 3 - c), 0.25f});
  require_close(
      as_vector(cg.forward(pairwise_rank_loss(input(cg, Dim({1, 2}), {2, 0.5f}), input(cg, Dim({1, 2}), {0, 0})))),
      {0.f, 0.5f});
  unsigned count = 3;
  const Expression rate = input(cg, std::log(2.f));
  const Expression p = poisson_loss(rate, &count);
  CHECK(as_scalar(cg.forward(p)) == Approx(2.f - 3.f * std::log(2.f) + std::log(6.f)));
  count = 0;
  CHECK(as_scalar(cg.forward(p)) == Approx(2.f));
  CHECK(as_scalar(cg.forward(poisson_loss(rate, 1u))) == Approx(2.f - std::log(2.f)));
  // Columns (0.5 0 1) with answer 0 and (0 0.5 2) with answer 2.
  const Expression m = input(cg, Dim({3, 2}), {0.5f, 0, 1, 0, 0.5f, 2});
  require_close(as_vector(cg.forward(hinge_dim(m, std::vector<unsigned>{0, 2}))), {2.f, 0.f});
  // Rows (0.5 0), (0 0.5), (1 2) with answers 1, 0, 0.
  require_close(as_vector(cg.forward(hinge_dim(m, std::vector<unsigned>{1, 0, 0}, 1))), {1.5f, 1.5f, 2.f});
  CHECK_THROWS_WITH(hinge_dim(m, std::vector<unsigned>{0}), Catch::Contains("hinge_dim"));
  CHECK_THROWS_WITH(l1_distance(x, zeros(cg, Dim({2}))), Catch::Contains("l1_distance"));
}

TEST_CASE("log_softmax over a restriction leaves the other elements at -infinity", "[ops][softmax]") {
  ComputationGraph cg;
  const Expression x = input(cg, Dim({3}), {1, 2, 3});
  const std::vector<float> y = as_vector(cg.forward(log_softmax(x, {0, 2})));
  const float lse = std::log(std::exp(1.f) + std::exp(3.f));
  CHECK(y[0] == Approx(1 - lse));
  CHECK(y[1] == -std::numeric_limits<float>::infinity());
  CHECK(y[2] == Approx(3 - lse));
  CHECK_THROWS_WITH(log_softmax(x, {3}), Catch::Contains("log_softmax") && Catch::Contains("index 3"));
}

TEST_CASE("restricted log_softmax gradient (DyNet's restricted_log_softmax_gradient)", "[ops][softmax]") {
  ParameterCollection model;
  Parameter p = model.add_parameters({3}, ParameterInitUniform(0.5f, 3.f));
  ComputationGraph cg;
  const Expression y = exp(log_softmax(parameter(cg, p), {0, 1}));
  test_support::check_gradients(model, cg, input(cg, Dim({1, 3}), {1, 0, 0}) * y);
}

TEST_CASE("sparsemax and sparsemax_loss", "[ops][softmax]") {
  ComputationGraph cg;
  require_close(as_vector(cg.forward(sparsemax(input(cg, Dim({3}), {1.1f, -2.2f, 3.3f})))), {0, 0, 1});
  const Expression x = input(cg, Dim({3}), {0.5f, 0.4f, -1.f});
  require_close(as_vector(cg.forward(sparsemax(x))), {0.55f, 0.45f, 0.f});
  // tau = -0.05 on the support {0, 1}: (0.25 - tau^2 + 0.16 - tau^2) / 2 + 1 / 2 - 0.5.
  CHECK(as_scalar(cg.forward(sparsemax_loss(x, std::vector<unsigned>{0}))) == Approx(0.2025f));
  const std::vector<unsigned> target{0, 1};
  CHECK(as_scalar(cg.forward(sparsemax_loss(x, &target))) == Approx(0.5f * (0.41f - 2 * 0.0025f) + 0.25f - 0.45f));
}

TEST_CASE("constrained_softmax holds elements at their bounds until none is above, as DyNet", "[ops][softmax]") {
  ComputationGraph cg;
  require_close(as_vector(cg.forward(
                    constrained_softmax(input(cg, Dim({4}), {0, 0, 0, 0}), input(cg, Dim({4}), {0.1f, 1, 1, 1})))),
                {0.1f, 0.3f, 0.3f, 0.3f});
  // Held in two rounds: 0.5 > 0.3 first, then 0.35 > 0.3 once the rest shares 0.7.
  const Expression x = input(cg, Dim({4}), {std::log(4.f), std::log(2.f), 0, 0});
  require_close(as_vector(cg.forward(constrained_softmax(x, input(cg, Dim({4}), {0.3f, 0.3f, 1, 1})))),
                {0.3f, 0.3f, 0.2f, 0.2f});
  // A free element landing exactly on its bound stays free: its bound gets no gradient, x a
  // softmax's.
  const Expression z = input(cg, Dim({2}), {0, 0}), u = input(cg, Dim({2}), {0.5f, 1});
  const Expression p = constrained_softmax(z, u);
  cg.backward(dot_product(input(cg, Dim({2}), {1, 0}), p), true);
  require_close(as_vector(cg.get_value(p)), {0.5f, 0.5f});
  require_close(as_vector(cg.get_gradient(z)), {0.25f, -0.25f});
  require_close(as_vector(cg.get_gradient(u)), {0, 0});
}

TEST_CASE("constrained_softmax bounds shared by a batch get the sum of its gradients", "[ops][softmax]") {
  ComputationGraph cg;
  const std::vector<float> xv{0.2f, -0.1f, 0.4f, 1.f, 0.f, -1.f}, uv{0.1f, 1.f, 0.05f};
  const Expression x = input(cg, Dim({3}, 2), xv), shared = input(cg, Dim({3}), uv);
  const Expression each = input(cg, Dim({3}, 2), {uv[0], uv[1], uv[2], uv[0], uv[1], uv[2]});
  const Expression weights = input(cg, Dim({3}, 2), {1.f, -2.f, 0.5f, 3.f, 1.f, -1.f});
  const Expression a = constrained_softmax(x, shared), b = constrained_softmax(x, each);
  cg.backward(sum_batches(dot_product(weights, a)), true);
  const std::vector<float> shared_grad = as_vector(cg.get_gradient(shared));
  cg.backward(sum_batches(dot_product(weights, b)), true);
  const std::vector<float> each_grad = as_vector(cg.get_gradient(each));
  require_close(as_vector(cg.get_value(a)), as_vector(cg.get_value(b)));
  require_close(shared_grad, {each_grad[0] + each_grad[3], each_grad[1] + each_grad[4], each_grad[2] + each_grad[5]});
  CHECK(shared_grad[0] != 0.f);
}

TEST_CASE("inverse, logdet, trace_of_product and the 3D contractions", "[ops][linalg]") {
  ComputationGraph cg;
  const Expression a = input(cg, Dim({2, 2}), {2, 1, 1, 3});
  require_close(as_vector(cg.forward(inverse(a))), {0.6f, -0.2f, -0.2f, 0.4f});
  CHECK(as_scalar(cg.forward(logdet(a))) == Approx(std::log(5.f)));
  // A negative determinant: log |det| (DyNet gives NaN there).
  CHECK(as_scalar(cg.forward(logdet(input(cg, Dim({2, 2}), {0, 2, 1, 0})))) == Approx(std::log(2.f)));
  CHECK(as_scalar(cg.forward(trace_of_product(input(cg, Dim({3}), {1, 2, 3}), input(cg, Dim({3}), {4, 5, 6})))) == 32);
  std::vector<float> xv(12);
  for (unsigned k = 0; k < 12; ++k) xv[k] = float(k + 1);
  const Expression x = input(cg, Dim({2, 3, 2}), xv), y = input(cg, Dim({2}), {1, -1}),
                   z = input(cg, Dim({3}), {1, 0, 2});
  std::vector<float> expected(6), t(2, 0.f);
  for (unsigned i = 0; i < 2; ++i)
    for (unsigned j = 0; j < 3; ++j) {
      expected[i + 2 * j] = xv[i + 2 * j] * 1 - xv[i + 2 * j + 6];
      t[i] += expected[i + 2 * j] * (j == 0 ? 1.f : j == 1 ? 0.f : 2.f);
    }
  require_close(as_vector(cg.forward(contract3d_1d(x, y))), expected);
  require_close(as_vector(cg.forward(contract3d_1d_1d(x, y, z))), t);
  require_close(as_vector(cg.forward(contract3d_1d_1d(x, y, z, input(cg, Dim({2}), {1, 1})))), {t[0] + 1, t[1] + 1});
  CHECK_THROWS_WITH(contract3d_1d(x, z), Catch::Contains("contract3d_1d"));
  CHECK_THROWS_WITH(inverse(input(cg, Dim({2, 3}), std::vector<float>(6, 1.f))),
                    Catch::Contains("inverse") && Catch::Contains("square"));
}

TEST_CASE("weight_norm scales w to norm g (DyNet's weight_norm_forward)", "[ops][normalization]") {
  ComputationGraph cg;
  const Expression w = input(cg, Dim({3, 3}), {1.1f, 2.2f, 3.4f, 1.2f, 2.5f, 3.2f, 5.3f, 2.3f, 3.3f});
  const Expression y = weight_norm(w, input(cg, 2.2f));
  CHECK(as_scalar(cg.forward(l2_norm(y))) == Approx(2.2f));
  CHECK_THROWS_WITH(weight_norm(w, input(cg, Dim({2}), {1, 1})), Catch::Contains("weight_norm"));
}

TEST_CASE("dropout_dim drops whole slices, random_gumbel has the Gumbel mean", "[ops][random]") {
  ComputationGraph cg;
  const Expression x = ones(cg, Dim({3, 40}, 2));
  const std::vector<float> v = as_vector(cg.forward(dropout_dim(x, 0, 0.5f)));
  unsigned kept = 0;
  for (unsigned col = 0; col < 80; ++col) {
    for (unsigned r = 1; r < 3; ++r) CHECK(v[3 * col + r] == v[3 * col]);
    CHECK((v[3 * col] == 0.f || v[3 * col] == 2.f));
    kept += v[3 * col] > 0.f;
  }
  CHECK(kept > 20);
  CHECK(kept < 60);
  CHECK_THROWS_WITH(dropout_dim(x, 2, 0.5f), Catch::Contains("dropout_dim"));
  const std::vector<float> g = as_vector(cg.forward(random_gumbel(cg, Dim({20000}), 1.f, 2.f)));
  double mean = 0;
  for (float e : g) mean += e / g.size();
  CHECK(mean == Approx(1.0 + 2.0 * 0.5772157).epsilon(0.03));
}

TEST_CASE("the ops written as compositions pass the gradient check", "[ops][gradcheck]") {
  ParameterCollection model;
  // a - b stays in [1, 2], away from the kinks of |.|, max(0, .) and the hinge.
  Parameter a = model.add_parameters({3, 4}, ParameterInitUniform(0.5f, 1.f));
  Parameter b = model.add_parameters({3, 4}, ParameterInitUniform(-1.f, -0.5f));
  Parameter cube = model.add_parameters({2, 3, 4}, ParameterInitUniform(-1.f, 1.f));
  Parameter v4 = model.add_parameters({4}, ParameterInitUniform(-1.f, 1.f));
  Parameter v3 = model.add_parameters({3}, ParameterInitUniform(-1.f, 1.f));
  Parameter g = model.add_parameters({1}, ParameterInitUniform(0.5f, 2.f));
  ComputationGraph cg;
  const Expression pa = parameter(cg, a), pb = parameter(cg, b);
  const Expression batched = reshape(pb, Dim({3, 2}, 2));
  const std::vector<Expression> ys{
      std_dim(pa, {1}),
      std_dim(batched, {0}, true),
      std_elems(pa),
      l1_distance(pa, pb),
      huber_distance(pa, pb, 1.5f),
      weight_norm(pa, parameter(cg, g)),
      trace_of_product(pa, pb),
      contract3d_1d_1d(parameter(cg, cube), parameter(cg, v4), parameter(cg, v3), pick_range(parameter(cg, v4), 0, 2)),
      fold_rows(reshape(pa, Dim({6, 2})), 3),
      hinge_dim(pa, std::vector<unsigned>{0, 2, 1, 1}, 0, 2.f),
      pairwise_rank_loss(reshape(pb, Dim({1, 12})), reshape(pa, Dim({1, 12})), 0.3f),
  };
  test_support::check_gradients(model, cg, test_support::weighted_sum(cg, ys, 11));
}
