// A builder's parameters saved on their own and loaded into another builder of the same shape
// (in another model) give the same outputs; a builder of another shape refuses them.

#include <catch2/catch.hpp>

#include <vector>

#include "builders/bi_rnn_builder.h"
#include "builders/coupled_lstm_builder.h"
#include "builders/nary_tree_lstm_builder.h"
#include "builders/standard_softmax_builder.h"
#include "builders/vanilla_lstm_builder.h"
#include "dynet_core/graph.h"
#include "dynet_core/io/savers_and_loaders.h"
#include "dynet_core/ops/all_ops.h"
#include "support/scramble.h"
#include "support/temp_file.h"

using namespace dynet;
using test_support::TempFile;

namespace {

std::vector<float> run_lstm(RNNBuilder& rnn) {
  ComputationGraph cg;
  rnn.new_graph(cg);
  rnn.start_new_sequence();
  rnn.add_input(input(cg, Dim({3}), {0.5f, -1.f, 2.f}));
  return as_vector(cg.forward(rnn.add_input(input(cg, Dim({3}), {1.f, 0.f, -0.5f}))));
}

std::vector<float> run_tree(TreeLSTMBuilder& tree) {
  ComputationGraph cg;
  tree.new_graph(cg);
  tree.add_input(0, {}, input(cg, Dim({3}), {0.5f, -1.f, 2.f}));
  tree.add_input(1, {}, input(cg, Dim({3}), {1.f, 0.f, -0.5f}));
  return as_vector(cg.forward(tree.add_input(2, {0, 1}, Expression())));
}

}  // namespace

TEST_CASE("a recurrent builder's parameters load into a builder of the same shape", "[builders][persistence]") {
  TempFile file("lstm.model", "");
  const bool binary = GENERATE(false, true);
  ParameterCollection trained_model;
  VanillaLSTMBuilder trained(2, 3, 4, trained_model);
  if (binary)
    BinaryFileSaver(file.path()).save(trained.get_parameter_collection());
  else
    TextFileSaver(file.path()).save(trained.get_parameter_collection());

  ParameterCollection other_model;
  other_model.add_parameters({5}, 0.f, "unrelated");
  VanillaLSTMBuilder loaded(2, 3, 4, other_model);
  CHECK(run_lstm(loaded) != run_lstm(trained));
  if (binary)
    BinaryFileLoader(file.path()).populate(loaded.get_parameter_collection());
  else
    TextFileLoader(file.path()).populate(loaded.get_parameter_collection());
  CHECK(run_lstm(loaded) == run_lstm(trained));

  ParameterCollection wrong_model;
  VanillaLSTMBuilder wider(2, 3, 5, wrong_model);
  const std::vector<float> before = run_lstm(wider);
  CHECK_THROWS_AS(TextFileLoader(file.path()).populate(wider.get_parameter_collection()), std::runtime_error);
  CHECK(run_lstm(wider) == before);
}

TEST_CASE("a layer-normalized LSTM's gains and biases save and load with the model it was given, as DyNet's",
          "[builders][persistence]") {
  TempFile file("ln-lstm.model", "");
  ParameterCollection trained_model, other_model;
  VanillaLSTMBuilder trained(2, 3, 4, trained_model, true), loaded(2, 3, 4, other_model, true);
  test_support::scramble(trained_model);
  TextFileSaver(file.path()).save(trained_model);
  TextFileLoader(file.path()).populate(loaded.get_parameter_collection(), "/vanilla-lstm-builder/");
  CHECK(run_lstm(loaded) != run_lstm(trained));  // the gains and biases are not in the builder's collection
  TextFileLoader(file.path()).populate(other_model);
  CHECK(run_lstm(loaded) == run_lstm(trained));
}

TEST_CASE("tree, bidirectional and softmax builders save and load with their model", "[builders][persistence]") {
  TempFile file("model.txt", "");
  ParameterCollection a_model, b_model;
  NaryTreeLSTMBuilder a_tree(2, 1, 3, 4, a_model), b_tree(2, 1, 3, 4, b_model);
  BiRNNBuilder a_bi(1, 3, 4, a_model, builder_factory<LSTMBuilder>()),
      b_bi(1, 3, 4, b_model, builder_factory<LSTMBuilder>());
  StandardSoftmaxBuilder a_softmax(4, 6, a_model), b_softmax(4, 6, b_model);
  TextFileSaver(file.path()).save(a_model);
  TextFileLoader(file.path()).populate(b_model);
  CHECK(run_tree(a_tree) == run_tree(b_tree));
  CHECK(run_lstm(a_bi.forward_builder(0)) == run_lstm(b_bi.forward_builder(0)));
  CHECK(run_lstm(a_bi.backward_builder(0)) == run_lstm(b_bi.backward_builder(0)));
  auto distribution = [](StandardSoftmaxBuilder& softmax) {
    ComputationGraph cg;
    softmax.new_graph(cg);
    return as_vector(cg.forward(softmax.full_log_distribution(input(cg, Dim({4}), {1.f, -2.f, 0.5f, 3.f}))));
  };
  CHECK(distribution(a_softmax) == distribution(b_softmax));
}
