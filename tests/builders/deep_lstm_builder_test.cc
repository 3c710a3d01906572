// DeepLSTMBuilder (DyNet's deep-lstm.h): the layers above the first read the layer below's output
// and the step's input joined, and add_input returns every layer's output joined.

#include <catch2/catch.hpp>

#include <Eigen/Core>
#include <vector>

#include "builders/deep_lstm_builder.h"
#include "dynet_core/graph.h"
#include "dynet_core/io/savers_and_loaders.h"
#include "dynet_core/ops/all_ops.h"
#include "dynet_core/random_engine.h"
#include "support/device_values.h"
#include "support/gradient_check.h"
#include "support/scramble.h"
#include "support/temp_file.h"

using namespace dynet;
using Eigen::MatrixXf;
using Eigen::VectorXf;
using test_support::scramble;

namespace {

constexpr unsigned kInput = 3, kHidden = 2;

MatrixXf value(const Parameter& p) { return host_matrix(p.get_storage().values); }
VectorXf sigmoid(const VectorXf& a) { return (1.f + (-a.array()).exp()).inverse().matrix(); }
VectorXf tanh_of(const VectorXf& a) { return a.array().tanh().matrix(); }

VectorXf to_eigen(const std::vector<float>& v) { return Eigen::Map<const VectorXf>(v.data(), v.size()); }
Expression vec(ComputationGraph& cg, const VectorXf& v) {
  return input(cg, Dim({unsigned(v.size())}), std::vector<float>(v.data(), v.data() + v.size()));
}

/// CoupledLSTM's equations for one layer with parameters p (DyNet's order) from (h0, c0).
std::pair<VectorXf, VectorXf> coupled_step(const std::vector<Parameter>& p, const VectorXf& x, const VectorXf& h0,
                                           const VectorXf& c0) {
  const VectorXf i = sigmoid(value(p[3]) + value(p[0]) * x + value(p[1]) * h0 + value(p[2]) * c0);
  const VectorXf g = tanh_of(value(p[10]) + value(p[8]) * x + value(p[9]) * h0);
  const VectorXf c = (VectorXf::Ones(kHidden) - i).cwiseProduct(c0) + i.cwiseProduct(g);
  const VectorXf o = sigmoid(value(p[7]) + value(p[4]) * x + value(p[5]) * h0 + value(p[6]) * c);
  return {o.cwiseProduct(tanh_of(c)), c};
}

void require_close(const VectorXf& got, const VectorXf& expected) {
  INFO("got " << got.transpose() << ", expected " << expected.transpose());
  REQUIRE(got.size() == expected.size());
  CHECK((got - expected).cwiseAbs().maxCoeff() < 1e-5f);
}

}  // namespace

TEST_CASE("a DeepLSTM step feeds [h below, x] to the upper layer and returns every layer's output", "[builders][rnn]") {
  ParameterCollection model;
  DeepLSTMBuilder rnn(2, kInput, kHidden, model);
  scramble(model);
  const auto& p = rnn.layer_parameters();
  REQUIRE(p[1].size() == 11);
  CHECK(p[0][0].dim() == Dim({kHidden, kInput}));
  CHECK(p[1][0].dim() == Dim({kHidden, kHidden + kInput}));
  CHECK(p[1][8].dim() == Dim({kHidden, kHidden + kInput}));

  const VectorXf x = VectorXf::LinSpaced(kInput, -0.8f, 0.9f);
  const VectorXf c0[2] = {VectorXf::LinSpaced(kHidden, -0.5f, 0.7f), VectorXf::LinSpaced(kHidden, 0.2f, -0.3f)};
  const VectorXf h0[2] = {VectorXf::LinSpaced(kHidden, 0.4f, -0.6f), VectorXf::LinSpaced(kHidden, -0.1f, 0.8f)};
  ComputationGraph cg;
  rnn.new_graph(cg);
  rnn.start_new_sequence({vec(cg, c0[0]), vec(cg, c0[1]), vec(cg, h0[0]), vec(cg, h0[1])});
  const Expression out = rnn.add_input(vec(cg, x));

  const auto bottom = coupled_step(p[0], x, h0[0], c0[0]);
  VectorXf joined(kHidden + kInput);
  joined << bottom.first, x;
  const auto top = coupled_step(p[1], joined, h0[1], c0[1]);
  VectorXf both(2 * kHidden);
  both << bottom.first, top.first;
  require_close(to_eigen(as_vector(cg.forward(out))), both);
  require_close(to_eigen(as_vector(cg.forward(rnn.back()))), top.first);
  const std::vector<Expression> s = rnn.final_s();
  REQUIRE(s.size() == 4);
  require_close(to_eigen(as_vector(cg.forward(s[1]))), top.second);
}

TEST_CASE("DeepLSTM gradients match central differences, batched and with dropout", "[builders][rnn][gradient]") {
  random_engine().seed(7);
  ParameterCollection model;
  DeepLSTMBuilder rnn(3, kInput, kHidden, model);
  LookupParameter words = model.add_lookup_parameters(4, {kInput});
  const bool dropout = GENERATE(false, true);
  if (dropout) rnn.set_dropout(0.3f, 0.2f);
  ComputationGraph cg;
  const std::vector<Expression> outputs = test_support::run_sequence(rnn, cg, words, {{0, 1}, {2, 3}, {1, 0}});
  CHECK(outputs.back().dim() == Dim({3 * kHidden}, 2));
  test_support::check_gradients(model, cg, test_support::weighted_sum(cg, outputs, 3));
}

TEST_CASE("a DeepLSTM's parameters load into a DeepLSTM of the same shape only", "[builders][persistence]") {
  test_support::TempFile file("deep-lstm.model", "");
  ParameterCollection trained_model, other_model, wrong_model;
  DeepLSTMBuilder trained(2, kInput, kHidden, trained_model), loaded(2, kInput, kHidden, other_model);
  DeepLSTMBuilder wider_input(2, kInput + 1, kHidden, wrong_model);
  auto run = [](DeepLSTMBuilder& rnn) {
    ComputationGraph cg;
    rnn.new_graph(cg);
    rnn.start_new_sequence();
    rnn.add_input(input(cg, Dim({kInput}), {0.5f, -1.f, 2.f}));
    return as_vector(cg.forward(rnn.add_input(input(cg, Dim({kInput}), {1.f, 0.f, -0.5f}))));
  };
  TextFileSaver(file.path()).save(trained.get_parameter_collection());
  CHECK(run(loaded) != run(trained));
  TextFileLoader(file.path()).populate(loaded.get_parameter_collection());
  CHECK(run(loaded) == run(trained));
  CHECK_THROWS_AS(TextFileLoader(file.path()).populate(wider_input.get_parameter_collection()), std::runtime_error);
}
