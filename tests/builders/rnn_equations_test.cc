// One step of every recurrent cell against its equations written out with Eigen, from a given
// initial state, so that every term (input, recurrence, cell) is exercised.

#include <catch2/catch.hpp>

#include <Eigen/Core>
#include <vector>

#include "builders/coupled_lstm_builder.h"
#include "builders/gru_builder.h"
#include "builders/simple_rnn_builder.h"
#include "builders/vanilla_lstm_builder.h"
#include "dynet_core/expr.h"
#include "dynet_core/graph.h"
#include "dynet_core/tensor_eigen.h"
#include "support/device_values.h"

using namespace dynet;
using Eigen::VectorXf;

namespace {

constexpr unsigned kInput = 3, kHidden = 2;

Eigen::MatrixXf value(const Parameter& p) { return host_matrix(p.get_storage().values); }
VectorXf sigmoid(const VectorXf& a) { return (1.f + (-a.array()).exp()).inverse().matrix(); }
VectorXf tanh_of(const VectorXf& a) { return a.array().tanh().matrix(); }
VectorXf cwise(const VectorXf& a, const VectorXf& b) { return a.cwiseProduct(b); }

/// Fills every parameter with distinct, non-trivial values (biases included).
void scramble(const std::vector<Parameter>& params) {
  float s = 0.3f;
  for (Parameter p : params) {
    std::vector<float> v(p.get_storage().size());
    for (float& x : v) x = (s = std::fmod(s * 7.13f + 0.37f, 2.f)) - 1.f;
    p.set_value(v);
  }
}

struct OneStep {
  ComputationGraph cg;
  VectorXf x = VectorXf::LinSpaced(kInput, -0.8f, 0.9f);
  VectorXf h0 = VectorXf::LinSpaced(kHidden, 0.4f, -0.6f);
  VectorXf c0 = VectorXf::LinSpaced(kHidden, -0.5f, 0.7f);

  Expression vec(const VectorXf& v) { return input(cg, Dim({unsigned(v.size())}), std::vector<float>(v.data(), v.data() + v.size())); }
  /// Runs one step of `rnn` from (c0, h0) and returns the output h and, for LSTMs, the cell c.
  std::pair<VectorXf, VectorXf> run(RNNBuilder& rnn) {
    rnn.new_graph(cg);
    if (rnn.num_h0_components() == 2)
      rnn.start_new_sequence({vec(c0), vec(h0)});
    else
      rnn.start_new_sequence({vec(h0)});
    rnn.add_input(vec(x));
    const std::vector<Expression> s = rnn.final_s();
    auto get = [&](const Expression& e) {
      const std::vector<float> v = as_vector(cg.incremental_forward(e));
      return VectorXf(Eigen::Map<const VectorXf>(v.data(), v.size()));
    };
    return {get(s.back()), s.size() == 2 ? get(s[0]) : VectorXf()};
  }
};

void require_close(const VectorXf& got, const VectorXf& expected) {
  INFO("got " << got.transpose() << ", expected " << expected.transpose());
  REQUIRE(got.size() == expected.size());
  CHECK((got - expected).cwiseAbs().maxCoeff() < 1e-5f);
}

}  // namespace

TEST_CASE("one SimpleRNN step is h = tanh(b + W_x x + W_h h0)", "[builders][rnn]") {
  ParameterCollection model;
  SimpleRNNBuilder rnn(1, kInput, kHidden, model);
  const auto& p = rnn.layer_parameters()[0];
  scramble(p);
  OneStep s;
  require_close(s.run(rnn).first, tanh_of(value(p[2]) + value(p[0]) * s.x + value(p[1]) * s.h0));
}

TEST_CASE("one VanillaLSTM step follows the LSTM equations, gates in the order i, f, o, g", "[builders][rnn]") {
  ParameterCollection model;
  const float forget_bias = GENERATE(1.f, 0.f);
  VanillaLSTMBuilder rnn(1, kInput, kHidden, model, false, forget_bias);
  const auto& p = rnn.layer_parameters()[0];
  scramble(p);
  OneStep s;
  const auto hc = s.run(rnn);
  const VectorXf a = value(p[2]) + value(p[0]) * s.x + value(p[1]) * s.h0;
  const unsigned n = kHidden;
  const VectorXf i = sigmoid(a.segment(0, n)), f = sigmoid(a.segment(n, n).array() + forget_bias);
  const VectorXf o = sigmoid(a.segment(2 * n, n)), g = tanh_of(a.segment(3 * n, n));
  const VectorXf c = cwise(f, s.c0) + cwise(i, g);
  require_close(hc.second, c);
  require_close(hc.first, cwise(o, tanh_of(c)));
}

TEST_CASE("one layer-normalized VanillaLSTM step normalizes W_x x, W_h h and c", "[builders][rnn]") {
  ParameterCollection model;
  VanillaLSTMBuilder rnn(1, kInput, kHidden, model, true);
  const auto& p = rnn.layer_parameters()[0];
  scramble(p);
  OneStep s;
  const auto hc = s.run(rnn);
  auto ln = [](const VectorXf& v, const Parameter& g, const Parameter& b) {
    const VectorXf centered = v.array() - v.mean();
    const float deviation = std::sqrt(centered.squaredNorm() / v.size() + 1e-6f);
    return VectorXf(cwise(value(g), centered / deviation) + value(b));
  };
  // Parameters: W_x, W_h, b, then gain/bias for W_h h, for W_x x, for c.
  const VectorXf a = value(p[2]) + ln(value(p[0]) * s.x, p[5], p[6]) + ln(value(p[1]) * s.h0, p[3], p[4]);
  const unsigned n = kHidden;
  const VectorXf i = sigmoid(a.segment(0, n)), f = sigmoid(a.segment(n, n).array() + 1.f);
  const VectorXf o = sigmoid(a.segment(2 * n, n)), g = tanh_of(a.segment(3 * n, n));
  const VectorXf c = cwise(f, s.c0) + cwise(i, g);
  require_close(hc.second, c);
  require_close(hc.first, cwise(o, tanh_of(ln(c, p[7], p[8]))));
}

TEST_CASE("one CoupledLSTM step has peepholes and f = 1 - i", "[builders][rnn]") {
  ParameterCollection model;
  CoupledLSTMBuilder rnn(1, kInput, kHidden, model);
  const auto& p = rnn.layer_parameters()[0];  // W_xi W_hi W_ci b_i W_xo W_ho W_co b_o W_xc W_hc b_c
  scramble(p);
  OneStep s;
  const auto hc = s.run(rnn);
  const VectorXf i = sigmoid(value(p[3]) + value(p[0]) * s.x + value(p[1]) * s.h0 + value(p[2]) * s.c0);
  const VectorXf g = tanh_of(value(p[10]) + value(p[8]) * s.x + value(p[9]) * s.h0);
  const VectorXf c = cwise(VectorXf::Ones(kHidden) - i, s.c0) + cwise(i, g);
  const VectorXf o = sigmoid(value(p[7]) + value(p[4]) * s.x + value(p[5]) * s.h0 + value(p[6]) * c);
  require_close(hc.second, c);
  require_close(hc.first, cwise(o, tanh_of(c)));
}

TEST_CASE("one GRU step interpolates between h0 and the candidate with the update gate", "[builders][rnn]") {
  ParameterCollection model;
  GRUBuilder rnn(1, kInput, kHidden, model);
  const auto& p = rnn.layer_parameters()[0];  // W_zr U_zr b_zr W_h U_h b_h
  scramble(p);
  OneStep s;
  const VectorXf zr = sigmoid(value(p[2]) + value(p[0]) * s.x + value(p[1]) * s.h0);
  const VectorXf z = zr.segment(0, kHidden), r = zr.segment(kHidden, kHidden);
  const VectorXf g = tanh_of(value(p[5]) + value(p[3]) * s.x + value(p[4]) * cwise(r, s.h0));
  require_close(s.run(rnn).first, cwise(VectorXf::Ones(kHidden) - z, s.h0) + cwise(z, g));
}
