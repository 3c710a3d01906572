// DyNet's Unidirectional- and BidirectionalTreeLSTMBuilder: a node is an LSTM run over its input and
// its children's outputs (checked against a VanillaLSTMBuilder over that sequence), gradients,
// batched trees, DyNet's collection names, saving and loading, and bad shapes.

#include <catch2/catch.hpp>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "builders/sequence_tree_lstm_builders.h"
#include "builders/vanilla_lstm_builder.h"
#include "dynet_core/graph.h"
#include "dynet_core/io/savers_and_loaders.h"
#include "dynet_core/ops/all_ops.h"
#include "support/gradient_check.h"
#include "support/temp_file.h"

using namespace dynet;

namespace {

constexpr unsigned kDim = 4, kLayers = 2;  // a node LSTM reads its children's outputs: input = hidden

/// Distinct, non-trivial values for every parameter of `lstm` (biases included).
void randomize(VanillaLSTMBuilder& lstm, float phase) {
  for (auto& layer : lstm.params)
    for (Parameter& p : layer) {
      std::vector<float> v(p.get_storage().size());
      for (std::size_t k = 0; k < v.size(); ++k) v[k] = 0.6f * std::sin(1.7f * k + phase);
      p.set_value(v);
    }
}

/// Copies the values of `from`'s parameters into `to`'s.
void copy_values(const VanillaLSTMBuilder& from, VanillaLSTMBuilder& to) {
  for (std::size_t l = 0; l < from.params.size(); ++l)
    for (std::size_t k = 0; k < from.params[l].size(); ++k)
      to.params[l][k].set_value(as_vector(from.params[l][k].get_storage().values));
}

/// The tree (0 1) -> 2 without input, then 3 over {2, 1} with an input; leaves and inputs from
/// `table` (one row per batch element). Returns the states of every node.
std::vector<Expression> build_tree(TreeLSTMBuilder& tree, ComputationGraph& cg, LookupParameter table,
                                   const std::vector<std::vector<unsigned>>& rows) {
  tree.new_graph(cg);
  tree.start_new_sequence();
  tree.add_input(0, {}, lookup(cg, table, rows[0]));
  tree.add_input(1, {}, lookup(cg, table, rows[1]));
  tree.add_input(2, {0, 1}, Expression());
  tree.add_input(3, {2, 1}, lookup(cg, table, rows[2]));
  std::vector<Expression> seen;
  for (int id = 0; id < 4; ++id)
    for (const Expression& s : tree.get_s(id)) seen.push_back(s);
  return seen;
}

/// The full state (cells, then outputs) of `lstm` after reading `xs` from the zero state.
std::vector<Expression> read(VanillaLSTMBuilder& lstm, const std::vector<Expression>& xs) {
  lstm.start_new_sequence();
  for (const Expression& x : xs) lstm.add_input(x);
  return lstm.final_s();
}

/// Three distinct inputs of {kDim}.
std::vector<Expression> three_inputs(ComputationGraph& cg) {
  return {input(cg, Dim({kDim}), {0.5f, -1.f, 0.2f, 0.9f}), input(cg, Dim({kDim}), {-0.3f, 0.4f, 1.f, -0.7f}),
          input(cg, Dim({kDim}), {0.1f, 0.8f, -0.6f, 0.3f})};
}

std::vector<float> values(ComputationGraph& cg, const std::vector<Expression>& es) {
  std::vector<float> v;
  for (const Expression& e : es) {
    const std::vector<float> part = as_vector(cg.incremental_forward(e));
    v.insert(v.end(), part.begin(), part.end());
  }
  return v;
}

void require_close(const std::vector<float>& got, const std::vector<float>& expected) {
  REQUIRE(got.size() == expected.size());
  for (std::size_t k = 0; k < got.size(); ++k) CHECK(got[k] == Approx(expected[k]).margin(1e-6));
}

}  // namespace

TEST_CASE("a unidirectional tree node is its LSTM over the input, then the children in order", "[builders][tree]") {
  ParameterCollection model, reference_model;
  UnidirectionalTreeLSTMBuilder tree(kLayers, kDim, kDim, model);
  randomize(tree.node_builder, 0.3f);
  VanillaLSTMBuilder lstm(kLayers, kDim, kDim, reference_model);
  copy_values(tree.node_builder, lstm);

  ComputationGraph cg;
  tree.new_graph(cg);
  lstm.new_graph(cg);
  const std::vector<Expression> x = three_inputs(cg);
  const Expression &x0 = x[0], &x1 = x[1], &x2 = x[2];
  const Expression h0 = tree.add_input(0, {}, x0), h1 = tree.add_input(1, {}, x1);
  tree.add_input(2, {0, 1}, x2);
  tree.add_input(3, {1, 0}, Expression());  // no input: the LSTM starts with the first child

  require_close(values(cg, tree.get_s(0)), values(cg, read(lstm, {x0})));
  require_close(values(cg, tree.get_s(2)), values(cg, read(lstm, {x2, h0, h1})));
  require_close(values(cg, tree.get_s(3)), values(cg, read(lstm, {h1, h0})));
  CHECK(tree.get_h(2).size() == kLayers);
}

TEST_CASE("a bidirectional tree node concatenates an LSTM over the children in order and one in reverse",
          "[builders][tree]") {
  ParameterCollection model, reference_model;
  BidirectionalTreeLSTMBuilder tree(kLayers, kDim, kDim, model);
  randomize(tree.fwd_node_builder, 0.3f);
  randomize(tree.rev_node_builder, 1.1f);
  VanillaLSTMBuilder fwd(kLayers, kDim, kDim / 2, reference_model), rev(kLayers, kDim, kDim / 2, reference_model);
  copy_values(tree.fwd_node_builder, fwd);
  copy_values(tree.rev_node_builder, rev);

  ComputationGraph cg;
  tree.new_graph(cg);
  fwd.new_graph(cg);
  rev.new_graph(cg);
  const std::vector<Expression> x = three_inputs(cg);
  const Expression &x0 = x[0], &x1 = x[1], &x2 = x[2];
  const Expression h0 = tree.add_input(0, {}, x0), h1 = tree.add_input(1, {}, x1);
  const Expression root = tree.add_input(2, {0, 1}, x2);

  const std::vector<Expression> f = read(fwd, {x2, h0, h1}), r = read(rev, {x2, h1, h0});
  std::vector<Expression> expected;  // per layer the two halves: cells, then outputs
  for (unsigned k = 0; k < 2 * kLayers; ++k) expected.push_back(concatenate({f[k], r[k]}));
  require_close(values(cg, tree.get_s(2)), values(cg, expected));
  CHECK(root.i == tree.get_h(2).back().i);
  CHECK(root.dim() == Dim({kDim}));
}

TEST_CASE("gradients flow through the sequence tree builders, batched or not", "[builders][tree]") {
  ParameterCollection model;
  LookupParameter table = model.add_lookup_parameters(4, {kDim});
  UnidirectionalTreeLSTMBuilder uni(kLayers, kDim, kDim, model);
  BidirectionalTreeLSTMBuilder bi(kLayers, kDim, kDim, model);
  const bool bidirectional = GENERATE(false, true);
  const bool batched = GENERATE(false, true);
  INFO((bidirectional ? "bidirectional" : "unidirectional") << (batched ? ", batched" : ""));
  TreeLSTMBuilder& tree = bidirectional ? static_cast<TreeLSTMBuilder&>(bi) : uni;
  const std::vector<std::vector<unsigned>> rows = batched ? std::vector<std::vector<unsigned>>{{0, 3}, {1, 2}, {2, 0}}
                                                          : std::vector<std::vector<unsigned>>{{0}, {1}, {2}};
  ComputationGraph cg;
  const std::vector<Expression> seen = build_tree(tree, cg, table, rows);
  test_support::check_gradients(model, cg, test_support::weighted_sum(cg, seen, 13));

  // Each tree of the batch on its own gives the same states.
  const std::vector<float> together = values(cg, seen);
  if (!batched) return;
  for (unsigned b = 0; b < 2; ++b) {
    ComputationGraph single;
    const std::vector<Expression> alone = build_tree(tree, single, table, {{rows[0][b]}, {rows[1][b]}, {rows[2][b]}});
    for (std::size_t k = 0, offset = 0; k < alone.size(); ++k) {
      const std::vector<float> v = as_vector(single.incremental_forward(alone[k]));
      for (std::size_t e = 0; e < v.size(); ++e)
        CHECK(v[e] == Approx(together[offset + b * v.size() + e]).margin(1e-6));
      offset += 2 * v.size();
    }
  }
}

TEST_CASE("the sequence tree builders keep DyNet's collections, save, load and clone", "[builders][tree]") {
  ParameterCollection model;
  UnidirectionalTreeLSTMBuilder uni(1, kDim, kDim, model);
  BidirectionalTreeLSTMBuilder bi(1, kDim, kDim, model);
  CHECK(uni.node_builder.params[0][0].get_fullname() == "/unidirectional-tree-lstm-builder/vanilla-lstm-builder/_0");
  CHECK(bi.fwd_node_builder.params[0][0].get_fullname() == "/bidirectional-tree-lstm-builder/vanilla-lstm-builder/_0");
  CHECK(bi.rev_node_builder.params[0][0].get_fullname() ==
        "/bidirectional-tree-lstm-builder/vanilla-lstm-builder_1/_0");
  CHECK(bi.get_parameter_collection().parameters_list().size() == 6);

  auto run = [](TreeLSTMBuilder& tree) {
    ComputationGraph cg;
    tree.new_graph(cg);
    tree.add_input(0, {}, input(cg, Dim({kDim}), {0.5f, -1.f, 2.f, 0.1f}));
    tree.add_input(1, {}, input(cg, Dim({kDim}), {1.f, 0.f, -0.5f, 0.3f}));
    return as_vector(cg.forward(tree.add_input(2, {0, 1}, Expression())));
  };
  test_support::TempFile file("bi-tree.model", "");
  TextFileSaver(file.path()).save(bi.get_parameter_collection());
  ParameterCollection other;
  BidirectionalTreeLSTMBuilder loaded(1, kDim, kDim, other);
  CHECK(run(loaded) != run(bi));
  TextFileLoader(file.path()).populate(loaded.get_parameter_collection());
  CHECK(run(loaded) == run(bi));

  const std::unique_ptr<TreeLSTMBuilder> copy = bi.clone();
  CHECK(run(*copy) == run(bi));
  BidirectionalTreeLSTMBuilder assigned;
  assigned = bi;
  CHECK(run(assigned) == run(bi));
}

TEST_CASE("the sequence tree builders refuse shapes their LSTMs cannot read", "[builders][tree]") {
  ParameterCollection model;
  CHECK_THROWS_WITH(
      BidirectionalTreeLSTMBuilder(1, kDim, 5, model),
      Catch::StartsWith("BidirectionalTreeLSTMBuilder: hidden_dim must be even") && Catch::Contains("got 5"));
  UnidirectionalTreeLSTMBuilder narrow(1, 3, kDim, model);
  ComputationGraph cg;
  narrow.new_graph(cg);
  narrow.add_input(0, {}, input(cg, Dim({3}), {1.f, 2.f, 3.f}));  // a leaf reads only its input
  CHECK_THROWS_WITH(
      narrow.add_input(1, {0}, Expression()),
      Catch::StartsWith("UnidirectionalTreeLSTMBuilder::add_input: ") && Catch::Contains("input_dim == hidden_dim"));
  CHECK_THROWS_WITH(UnidirectionalTreeLSTMBuilder().new_graph(cg), Catch::Contains("default-constructed"));
}

TEST_CASE("a new tree starts the node LSTMs' sequences anew, and new_graph passes on update", "[builders][tree]") {
  ParameterCollection model;
  BidirectionalTreeLSTMBuilder tree(1, kDim, kDim, model);
  tree.fwd_node_builder.set_dropout(0.3f, 0.3f);
  ComputationGraph cg;
  tree.new_graph(cg);
  tree.add_input(0, {}, input(cg, Dim({kDim}, 2), std::vector<float>(2 * kDim, 0.5f)));
  tree.start_new_sequence();  // the dropout masks of a batch of 2 are forgotten with the tree
  CHECK_NOTHROW(tree.add_input(0, {}, input(cg, Dim({kDim}, 3), std::vector<float>(3 * kDim, 0.5f))));

  ComputationGraph frozen;
  tree.new_graph(frozen, false);
  const Expression root = tree.add_input(0, {}, input(frozen, Dim({kDim}), std::vector<float>(kDim, 0.5f)));
  model.reset_gradient();
  frozen.backward(sum_elems(root));
  CHECK(model.gradient_l2_norm() == 0.f);
}
