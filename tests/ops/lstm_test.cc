// The LSTM family against the equations DyNet documents for it, computed here element by element.

#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include "dynet_core/graph.h"
#include "dynet_core/ops/all_ops.h"

using namespace dynet;

namespace {

float sigmoid(float v) { return 1.f / (1.f + std::exp(-v)); }

/// Gates for hidden size 1 and one input: pre = Wx x + Wh h + b (+1 on the forget gate).
std::vector<float> expected_gates(const std::vector<float>& wx, const std::vector<float>& wh,
                                  const std::vector<float>& b, float x, float h) {
  std::vector<float> g(4);
  for (unsigned k = 0; k < 4; ++k) {
    const float pre = wx[k] * x + wh[k] * h + b[k] + (k == 1 ? 1.f : 0.f);
    g[k] = k < 3 ? sigmoid(pre) : std::tanh(pre);
  }
  return g;
}

}  // namespace

TEST_CASE("vanilla_lstm_gates computes i, f, o, g with the forget gate's bias shifted by one", "[ops][lstm]") {
  const std::vector<float> wx{0.5f, -0.3f, 0.8f, 0.2f}, wh{-0.4f, 0.6f, 0.1f, -0.7f}, b{0.1f, -0.2f, 0.3f, 0.05f};
  ComputationGraph cg;
  const Expression x = input(cg, Dim({1}, 2), {0.7f, -1.2f});
  const Expression h = input(cg, Dim({1}), {0.4f});  // broadcast over the batch of x
  const Expression g =
      vanilla_lstm_gates(x, h, input(cg, Dim({4, 1}), wx), input(cg, Dim({4, 1}), wh), input(cg, Dim({4}), b));
  REQUIRE(g.dim() == Dim({4}, 2));
  const std::vector<float> v = as_vector(cg.forward(g));
  for (unsigned t = 0; t < 2; ++t) {
    const std::vector<float> e = expected_gates(wx, wh, b, t == 0 ? 0.7f : -1.2f, 0.4f);
    for (unsigned k = 0; k < 4; ++k) CHECK(v[t * 4 + k] == Approx(e[k]).epsilon(1e-5));
  }
}

TEST_CASE("vanilla_lstm_gates: the concat and dropout forms equal the plain form on concatenated, masked inputs",
          "[ops][lstm]") {
  ComputationGraph cg;
  const Expression x1 = input(cg, Dim({2}, 2), {0.1f, -0.5f, 0.9f, 0.3f});
  const Expression x2 = input(cg, Dim({1}), {0.7f});
  const Expression h = input(cg, Dim({2}, 2), {0.2f, -0.1f, 0.6f, 0.4f});
  std::vector<float> wxv(8 * 3), whv(8 * 2), bv(8);
  for (std::size_t k = 0; k < wxv.size(); ++k) wxv[k] = std::sin(0.7f * k);
  for (std::size_t k = 0; k < whv.size(); ++k) whv[k] = std::cos(0.3f * k);
  for (std::size_t k = 0; k < bv.size(); ++k) bv[k] = 0.1f * k - 0.4f;
  const Expression wx = input(cg, Dim({8, 3}), wxv), wh = input(cg, Dim({8, 2}), whv), b = input(cg, Dim({8}), bv);
  const Expression mx = input(cg, Dim({3}), {2.f, 0.f, 2.f});
  const Expression mh = input(cg, Dim({2}, 2), {0.f, 2.f, 2.f, 2.f});

  const Expression concat = concatenate({x1, x2});
  const std::vector<float> plain = as_vector(cg.forward(vanilla_lstm_gates(concat, h, wx, wh, b)));
  CHECK(as_vector(cg.forward(vanilla_lstm_gates_concat({x1, x2}, h, wx, wh, b))) == plain);

  const std::vector<float> masked =
      as_vector(cg.forward(vanilla_lstm_gates(cmult(concat, mx), cmult(h, mh), wx, wh, b)));
  const std::vector<float> dropout =
      as_vector(cg.forward(vanilla_lstm_gates_dropout_concat({x1, x2}, h, wx, wh, b, mx, mh)));
  REQUIRE(dropout.size() == masked.size());
  for (std::size_t k = 0; k < masked.size(); ++k) CHECK(dropout[k] == Approx(masked[k]).margin(1e-6));
  const std::vector<float> one = as_vector(cg.forward(vanilla_lstm_gates_dropout(concat, h, wx, wh, b, mx, mh)));
  for (std::size_t k = 0; k < masked.size(); ++k) CHECK(one[k] == Approx(masked[k]).margin(1e-6));
}

TEST_CASE("vanilla_lstm_c and vanilla_lstm_h follow c = i g + f c_tm1 and h = o tanh(c)", "[ops][lstm]") {
  ComputationGraph cg;
  const std::vector<float> gates{0.2f, 0.7f, 0.9f, -0.5f, 0.4f, 0.1f, 0.6f, 0.3f};  // hidden 2: i i f f o o g g
  const Expression g = input(cg, Dim({8}), gates);
  const Expression c_tm1 = input(cg, Dim({2}), {1.5f, -2.f});
  const std::vector<float> c = as_vector(cg.forward(vanilla_lstm_c(c_tm1, g)));
  CHECK(c[0] == Approx(0.2f * 0.6f + 0.9f * 1.5f));
  CHECK(c[1] == Approx(0.7f * 0.3f + -0.5f * -2.f));
  const std::vector<float> h = as_vector(cg.forward(vanilla_lstm_h(input(cg, Dim({2}), c), g)));
  CHECK(h[0] == Approx(0.4f * std::tanh(c[0])));
  CHECK(h[1] == Approx(0.1f * std::tanh(c[1])));
}

TEST_CASE("vanilla_lstm ops reject shapes that do not fit, naming the function", "[ops][lstm]") {
  ComputationGraph cg;
  const Expression x = zeros(cg, Dim({3})), h = zeros(cg, Dim({2}));
  CHECK_THROWS_WITH(vanilla_lstm_gates(x, h, zeros(cg, Dim({8, 2})), zeros(cg, Dim({8, 2})), zeros(cg, Dim({8}))),
                    Catch::Contains("vanilla_lstm_gates") && Catch::Contains("Wx must be {8,3}"));
  CHECK_THROWS_WITH(vanilla_lstm_gates_dropout(x, h, zeros(cg, Dim({8, 3})), zeros(cg, Dim({8, 2})),
                                               zeros(cg, Dim({8})), zeros(cg, Dim({2})), zeros(cg, Dim({2}))),
                    Catch::Contains("vanilla_lstm_gates_dropout") && Catch::Contains("dropout_mask_x"));
  CHECK_THROWS_WITH(vanilla_lstm_c(h, zeros(cg, Dim({6}))),
                    Catch::Contains("vanilla_lstm_c") && Catch::Contains("8 rows"));
  CHECK_THROWS_AS(vanilla_lstm_gates(x, h, zeros(cg, Dim({8, 3})), zeros(cg, Dim({8, 2})), zeros(cg, Dim({8})), -1.f),
                  std::invalid_argument);
}
