// The builders under the autobatching engines: the same values and gradients as the sequential
// engine, and cells that batch: K sequences (or trees) of one shape in one graph take as many
// kernel calls as two do.

#include <catch2/catch.hpp>

#include <functional>
#include <memory>
#include <type_traits>
#include <vector>

#include "builders/bi_rnn_builder.h"
#include "builders/child_sum_tree_lstm_builder.h"
#include "builders/compact_vanilla_lstm_builder.h"
#include "builders/coupled_lstm_builder.h"
#include "builders/gru_builder.h"
#include "builders/nary_tree_lstm_builder.h"
#include "builders/sequence_tree_lstm_builders.h"
#include "builders/simple_rnn_builder.h"
#include "builders/sparse_lstm_builder.h"
#include "builders/vanilla_lstm_builder.h"
#include "dynet_core/graph.h"
#include "dynet_core/ops/all_ops.h"
#include "dynet_core/random_engine.h"
#include "support/device_values.h"
#include "support/gradient_check.h"

using namespace dynet;

namespace {

constexpr unsigned kInput = 3, kHidden = 4;

/// Builds, in cg, the loss over `count` sequences or trees whose shapes depend on `ragged`.
using Scenario = std::function<Expression(ComputationGraph& cg, unsigned count, bool ragged)>;

struct Run {
  std::vector<float> values;  ///< the loss, then every parameter and table gradient
  EngineStats forward;
};

Run run(ParameterCollection& model, const Scenario& scenario, int strategy, unsigned count, bool ragged) {
  model.reset_gradient();
  random_engine().seed(42);  // the same dropout masks in every run
  ComputationGraph cg;
  cg.set_autobatch(strategy);
  const Expression loss = scenario(cg, count, ragged);
  cg.engine().reset_stats();
  Run r;
  r.values.push_back(as_scalar(cg.forward(loss)));
  r.forward = cg.engine().stats();
  cg.backward(loss);
  for (const auto& p : model.parameters_list()) append_values(r.values, p->g);
  for (const auto& t : model.lookup_parameters_list()) append_values(r.values, t->all_grads);
  return r;
}

void check_engines(ParameterCollection& model, const Scenario& scenario) {
  const Run reference = run(model, scenario, 0, 5, true);
  for (int strategy : {1, 2}) {
    INFO("--dynet-autobatch " << strategy);
    const Run got = run(model, scenario, strategy, 5, true);
    REQUIRE(got.values.size() == reference.values.size());
    for (std::size_t k = 0; k < got.values.size(); ++k)
      REQUIRE(got.values[k] == Approx(reference.values[k]).epsilon(1e-4).margin(1e-6));
    // Groups of more trees are as many; products computed ahead (leading_products.h) serve
    // narrow groups only, so they come and go with the count.
    const EngineStats wide = run(model, scenario, strategy, 8, false).forward,
                      narrow = run(model, scenario, strategy, 2, false).forward;
    CHECK(wide.batches - wide.leading_products == narrow.batches - narrow.leading_products);
  }
}

/// Sequences of rows of `table` through `rnn`, of 3 steps each (or 1 to 5 when ragged).
Scenario sequences(RNNBuilder& rnn, LookupParameter table) {
  return [&rnn, table](ComputationGraph& cg, unsigned count, bool ragged) {
    rnn.new_graph(cg);
    std::vector<Expression> outputs;
    for (unsigned s = 0; s < count; ++s) {
      rnn.start_new_sequence();
      const unsigned length = ragged ? 1 + s % 5 : 3;
      for (unsigned t = 0; t < length; ++t) outputs.push_back(rnn.add_input(lookup(cg, table, (s + t) % 6)));
    }
    return test_support::weighted_sum(cg, outputs, 3);
  };
}

/// Trees over rows of `table`: ((0 1) 2), or when ragged also deeper and flatter ones.
Scenario trees(TreeLSTMBuilder& tree, LookupParameter table) {
  return [&tree, table](ComputationGraph& cg, unsigned count, bool ragged) {
    tree.new_graph(cg);
    std::vector<Expression> roots;
    for (unsigned s = 0; s < count; ++s) {
      tree.start_new_sequence();
      const unsigned leaves = ragged ? 2 + s % 3 : 3;
      for (unsigned k = 0; k < leaves; ++k) tree.add_input(static_cast<int>(k), {}, lookup(cg, table, (s + k) % 6));
      int top = 0;
      for (unsigned k = 1; k < leaves; ++k) {
        const int id = static_cast<int>(leaves + k - 1);
        tree.add_input(id, {top, static_cast<int>(k)}, Expression());
        top = id;
      }
      roots.push_back(tree.back());
    }
    return test_support::weighted_sum(cg, roots, 5);
  };
}

}  // namespace

TEMPLATE_TEST_CASE("recurrent builders batch across sequences and agree under autobatching", "[builders][autobatch]",
                   SimpleRNNBuilder, VanillaLSTMBuilder, CompactVanillaLSTMBuilder, CoupledLSTMBuilder, GRUBuilder,
                   SparseLSTMBuilder) {
  ParameterCollection model;
  TestType rnn(2, kInput, kHidden, model);
  LookupParameter table = model.add_lookup_parameters(6, {kInput});
  if constexpr (std::is_same_v<TestType, SparseLSTMBuilder>) rnn.set_sparsity(0.4f);
  check_engines(model, sequences(rnn, table));
}

TEST_CASE("a layer-normalized LSTM with dropout batches across sequences", "[builders][autobatch]") {
  ParameterCollection model;
  VanillaLSTMBuilder rnn(1, kInput, kHidden, model, true);
  rnn.set_dropout(0.2f, 0.3f);
  LookupParameter table = model.add_lookup_parameters(6, {kInput});
  check_engines(model, sequences(rnn, table));
}

TEST_CASE("a BiLSTM batches across sequences", "[builders][autobatch]") {
  ParameterCollection model;
  BiRNNBuilder bi(2, kInput, 2 * kHidden, model, builder_factory<VanillaLSTMBuilder>());
  LookupParameter table = model.add_lookup_parameters(6, {kInput});
  check_engines(model, [&](ComputationGraph& cg, unsigned count, bool ragged) {
    bi.new_graph(cg);
    std::vector<Expression> outputs;
    for (unsigned s = 0; s < count; ++s) {
      std::vector<Expression> xs;
      for (unsigned t = 0, length = ragged ? 1 + s % 4 : 3; t < length; ++t)
        xs.push_back(lookup(cg, table, (s + t) % 6));
      for (const Expression& h : bi.transduce(xs)) outputs.push_back(h);
    }
    return test_support::weighted_sum(cg, outputs, 9);
  });
}

TEST_CASE("tree builders batch across trees and agree under autobatching", "[builders][autobatch]") {
  ParameterCollection model;
  LookupParameter table = model.add_lookup_parameters(6, {kInput});
  NaryTreeLSTMBuilder nary(2, 2, kInput, kHidden, model);
  ChildSumTreeLSTMBuilder child_sum(2, kInput, kHidden, model);
  SECTION("N-ary") { check_engines(model, trees(nary, table)); }
  SECTION("child-sum") { check_engines(model, trees(child_sum, table)); }
}

TEST_CASE("sequence tree builders batch across trees and agree under autobatching", "[builders][autobatch]") {
  ParameterCollection model;
  LookupParameter table = model.add_lookup_parameters(6, {kHidden});  // children are read as inputs
  UnidirectionalTreeLSTMBuilder uni(2, kHidden, kHidden, model);
  BidirectionalTreeLSTMBuilder bi(2, kHidden, kHidden, model);
  SECTION("unidirectional") { check_engines(model, trees(uni, table)); }
  SECTION("bidirectional") { check_engines(model, trees(bi, table)); }
}
