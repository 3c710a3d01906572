#include <catch2/catch.hpp>

#include <vector>

#include "builders/bi_rnn_builder.h"
#include "builders/gru_builder.h"
#include "builders/vanilla_lstm_builder.h"
#include "dynet_core/graph.h"
#include "dynet_core/ops/all_ops.h"
#include "support/gradient_check.h"

using namespace dynet;

TEST_CASE("a BiRNN concatenates a left-to-right and a right-to-left pass", "[builders][birnn]") {
  ParameterCollection model;
  BiRNNBuilder bi(1, 3, 8, model, builder_factory<GRUBuilder>());
  LookupParameter table = model.add_lookup_parameters(4, {3});
  ComputationGraph cg;
  bi.new_graph(cg);
  std::vector<Expression> xs;
  for (unsigned k = 0; k < 4; ++k) xs.push_back(lookup(cg, table, k));
  const std::vector<Expression> hs = bi.transduce(xs);
  REQUIRE(hs.size() == 4);
  CHECK(hs[0].dim() == Dim({8}));

  // The same builders run by hand in each direction.
  RNNBuilder& fwd = bi.forward_builder(0);
  RNNBuilder& bwd = bi.backward_builder(0);
  std::vector<Expression> forward(4), backward(4);
  fwd.start_new_sequence();
  for (unsigned t = 0; t < 4; ++t) forward[t] = fwd.add_input(xs[t]);
  bwd.start_new_sequence();
  for (unsigned t = 4; t-- > 0;) backward[t] = bwd.add_input(xs[t]);
  for (unsigned t = 0; t < 4; ++t) {
    std::vector<float> expected = as_vector(cg.incremental_forward(forward[t]));
    const std::vector<float> b = as_vector(cg.incremental_forward(backward[t]));
    expected.insert(expected.end(), b.begin(), b.end());
    const std::vector<float> got = as_vector(cg.incremental_forward(hs[t]));
    for (unsigned k = 0; k < 8; ++k) CHECK(got[k] == Approx(expected[k]).margin(1e-6));
  }
}

TEST_CASE("gradients flow through a two-layer BiLSTM", "[builders][birnn]") {
  ParameterCollection model;
  BiRNNBuilder bi(2, 3, 4, model, builder_factory<VanillaLSTMBuilder>());
  LookupParameter table = model.add_lookup_parameters(4, {3});
  ComputationGraph cg;
  bi.new_graph(cg);
  std::vector<Expression> xs;
  for (unsigned k = 0; k < 3; ++k) xs.push_back(lookup(cg, table, std::vector<unsigned>{k, 3 - k}));
  const auto pairs = bi.add_inputs(xs);
  CHECK(pairs[0].first.dim() == Dim({2}, 2));
  test_support::check_gradients(model, cg, test_support::weighted_sum(cg, bi.transduce(xs), 5));
}

TEST_CASE("a BiRNN needs an even hidden size and a factory", "[builders][birnn]") {
  ParameterCollection model;
  CHECK_THROWS_WITH(BiRNNBuilder(1, 3, 5, model, builder_factory<GRUBuilder>()), Catch::Contains("even"));
  CHECK_THROWS_WITH(BiRNNBuilder(1, 3, 4, model, RNNBuilderFactory()), Catch::Contains("factory"));
  CHECK(model.parameters_list().empty());
}
