// The tree builders: gradients, the N-ary (DyNet's) and child-sum equations on a small tree, the
// role of child order, batched trees, and bad input.

#include <catch2/catch.hpp>

#include <Eigen/Core>
#include <algorithm>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "builders/child_sum_tree_lstm_builder.h"
#include "builders/nary_tree_lstm_builder.h"
#include "dynet_core/graph.h"
#include "dynet_core/ops/all_ops.h"
#include "dynet_core/tensor_eigen.h"
#include "support/address_space_cap.h"
#include "support/device_values.h"
#include "support/gradient_check.h"
#include "support/scramble.h"

using namespace dynet;
using Eigen::VectorXf;

namespace {

constexpr unsigned kInput = 3, kHidden = 2;

/// Builds the tree ((0 1) 2) with leaves read from `table` (one row per batch element), plus a
/// unary node over the root; returns every node's full state.
std::vector<Expression> build_tree(TreeLSTMBuilder& tree, ComputationGraph& cg, LookupParameter table,
                                   const std::vector<std::vector<unsigned>>& leaves) {
  tree.new_graph(cg);
  tree.start_new_sequence();
  for (int k = 0; k < 3; ++k) tree.add_input(k, {}, lookup(cg, table, leaves[unsigned(k)]));
  tree.add_input(3, {0, 1}, Expression());
  tree.add_input(4, {3, 2}, lookup(cg, table, leaves[0]));
  tree.add_input(5, {4}, Expression());
  std::vector<Expression> seen;
  for (int k = 0; k < 6; ++k)
    for (const Expression& s : tree.get_s(k)) seen.push_back(s);
  return seen;
}

Eigen::MatrixXf value(const Parameter& p) { return host_matrix(p.get_storage().values); }
VectorXf sigmoid(const VectorXf& a) { return (1.f + (-a.array()).exp()).inverse().matrix(); }
VectorXf tanh_of(const VectorXf& a) { return a.array().tanh().matrix(); }
VectorXf cwise(const VectorXf& a, const VectorXf& b) { return a.cwiseProduct(b); }
VectorXf get(ComputationGraph& cg, const Expression& e) {
  const std::vector<float> v = as_vector(cg.incremental_forward(e));
  return Eigen::Map<const VectorXf>(v.data(), v.size());
}

}  // namespace

TEST_CASE("gradients flow through the tree builders", "[builders][tree]") {
  ParameterCollection model;
  LookupParameter table = model.add_lookup_parameters(4, {kInput});
  const bool nary = GENERATE(true, false);
  const bool batched = GENERATE(false, true);
  INFO((nary ? "N-ary" : "child-sum") << (batched ? ", batched" : ""));
  NaryTreeLSTMBuilder nary_tree(2, 2, kInput, kHidden, model);
  ChildSumTreeLSTMBuilder child_sum(2, kInput, kHidden, model);
  TreeLSTMBuilder& tree = nary ? static_cast<TreeLSTMBuilder&>(nary_tree) : child_sum;
  ComputationGraph cg;
  const std::vector<std::vector<unsigned>> leaves = batched ? std::vector<std::vector<unsigned>>{{0, 3}, {1, 2}, {2, 0}}
                                                            : std::vector<std::vector<unsigned>>{{0}, {1}, {2}};
  const std::vector<Expression> seen = build_tree(tree, cg, table, leaves);
  test_support::check_gradients(model, cg, test_support::weighted_sum(cg, seen, 13));
}

TEST_CASE("an N-ary TreeLSTM node computes DyNet's equations, more than N children included", "[builders][tree]") {
  // treelstm.cc: per layer params x2i, bi, x2f, bf, x2o, bo, x2c, bc and lookup tables h2i, h2f,
  // h2o, h2c, c2i, c2f, c2o; child j reads row e(j) = min(j, N - 1), forget gate k row e(j) N + e(k).
  constexpr unsigned N = 2, kLayers = 2;
  ParameterCollection model;
  NaryTreeLSTMBuilder tree(N, kLayers, kInput, kHidden, model);
  test_support::scramble(model);
  REQUIRE(tree.params.size() == kLayers);
  REQUIRE(tree.lparams.size() == kLayers);
  struct State {
    VectorXf h, c;
  };
  auto node = [&](unsigned l, const VectorXf* x, const std::vector<const State*>& children) {
    const auto& p = tree.params[l];
    const auto& lp = tree.lparams[l];
    auto W = [&](unsigned k) { return value(p[k]); };
    auto L = [&](unsigned table, unsigned row) { return host_matrix(lp[table].get_storage().values[row]); };
    enum { X2I, BI, X2F, BF, X2O, BO, X2C, BC };
    enum { H2I, H2F, H2O, H2C, C2I, C2F, C2O };
    auto e = [&](std::size_t j) { return unsigned(std::min<std::size_t>(j, N - 1)); };
    auto input_term = [&](unsigned w) { return x ? VectorXf(W(w) * *x) : VectorXf(VectorXf::Zero(kHidden)); };
    VectorXf ai = W(BI) + input_term(X2I), ao = W(BO) + input_term(X2O), au = W(BC) + input_term(X2C);
    for (std::size_t j = 0; j < children.size(); ++j) {
      ai += L(H2I, e(j)) * children[j]->h + L(C2I, e(j)) * children[j]->c;
      ao += L(H2O, e(j)) * children[j]->h + L(C2O, e(j)) * children[j]->c;
      au += L(H2C, e(j)) * children[j]->h;
    }
    VectorXf c = cwise(sigmoid(ai), tanh_of(au));
    for (std::size_t k = 0; k < children.size(); ++k) {
      VectorXf af = W(BF) + input_term(X2F);
      for (std::size_t j = 0; j < children.size(); ++j)
        af += L(H2F, e(j) * N + e(k)) * children[j]->h + L(C2F, e(j) * N + e(k)) * children[j]->c;
      c += cwise(sigmoid(af.array() + 1.f), children[k]->c);
    }
    return State{cwise(sigmoid(ao), tanh_of(c)), c};
  };
  // Nodes: three leaves, 3 = (0 1) with input, 4 = (3 2 0) with input (three children for N = 2),
  // 5 = (4) without input.
  const std::vector<std::vector<int>> children{{}, {}, {}, {0, 1}, {3, 2, 0}, {4}};
  const std::vector<bool> has_input{true, true, true, true, true, false};
  ComputationGraph cg;
  tree.new_graph(cg);
  std::vector<std::vector<State>> expected;  // per node, per layer
  for (int id = 0; id < int(children.size()); ++id) {
    const VectorXf x = VectorXf::LinSpaced(kInput, -0.5f + 0.3f * float(id), 0.8f - 0.2f * float(id));
    tree.add_input(id, children[unsigned(id)],
                   has_input[unsigned(id)] ? input(cg, Dim({kInput}), std::vector<float>(x.data(), x.data() + kInput))
                                           : Expression());
    std::vector<State> layers;
    VectorXf in = x;
    for (unsigned l = 0; l < kLayers; ++l) {
      std::vector<const State*> kids;
      for (int child : children[unsigned(id)]) kids.push_back(&expected[unsigned(child)][l]);
      layers.push_back(node(l, l == 0 && !has_input[unsigned(id)] ? nullptr : &in, kids));
      in = layers.back().h;
    }
    expected.push_back(layers);
    const std::vector<Expression> s = tree.get_s(id);
    for (unsigned l = 0; l < kLayers; ++l) {
      INFO("node " << id << ", layer " << l);
      CHECK((get(cg, s[l]) - layers[l].c).cwiseAbs().maxCoeff() < 1e-5f);
      CHECK((get(cg, s[kLayers + l]) - layers[l].h).cwiseAbs().maxCoeff() < 1e-5f);
    }
  }
}

TEST_CASE("a child-sum TreeLSTM node follows Tai et al.'s equations", "[builders][tree]") {
  ParameterCollection model;
  ChildSumTreeLSTMBuilder tree(1, kInput, kHidden, model);
  test_support::scramble(model);
  const auto& p = tree.layer_parameters()[0];  // W_iou, U_iou, b_iou, W_f, U_f, b_f
  const unsigned n = kHidden;
  ComputationGraph cg;
  tree.new_graph(cg);
  tree.start_new_sequence();
  const VectorXf x0 = VectorXf::LinSpaced(kInput, -0.5f, 0.8f), x1 = VectorXf::LinSpaced(kInput, 0.9f, -0.2f);
  const VectorXf x2 = VectorXf::LinSpaced(kInput, 0.3f, 0.1f);
  auto vec = [&](const VectorXf& v) {
    return input(cg, Dim({kInput}), std::vector<float>(v.data(), v.data() + v.size()));
  };
  tree.add_input(0, {}, vec(x0));
  tree.add_input(1, {}, vec(x1));
  tree.add_input(2, {0, 1}, vec(x2));

  auto node = [&](const VectorXf& x, const std::vector<std::pair<VectorXf, VectorXf>>& children, VectorXf& h,
                  VectorXf& c) {
    VectorXf h_sum = VectorXf::Zero(n);
    for (const auto& hc : children) h_sum += hc.first;
    const VectorXf a = value(p[2]) + value(p[0]) * x + value(p[1]) * h_sum;
    c = cwise(sigmoid(a.segment(0, n)), tanh_of(a.segment(2 * n, n)));
    for (const auto& hc : children)
      c += cwise(sigmoid(value(p[5]) + value(p[3]) * x + value(p[4]) * hc.first), hc.second);
    h = cwise(sigmoid(a.segment(n, n)), tanh_of(c));
  };
  VectorXf h0, c0, h1, c1, h, c;
  node(x0, {}, h0, c0);
  node(x1, {}, h1, c1);
  node(x2, {{h0, c0}, {h1, c1}}, h, c);
  const std::vector<Expression> s = tree.get_s(2);
  CHECK((get(cg, s[0]) - c).cwiseAbs().maxCoeff() < 1e-5f);
  CHECK((get(cg, s[1]) - h).cwiseAbs().maxCoeff() < 1e-5f);
}

TEST_CASE("child order matters to the N-ary TreeLSTM only", "[builders][tree]") {
  ParameterCollection model;
  LookupParameter table = model.add_lookup_parameters(2, {kInput});
  NaryTreeLSTMBuilder nary(2, 1, kInput, kHidden, model);
  ChildSumTreeLSTMBuilder child_sum(1, kInput, kHidden, model);
  for (TreeLSTMBuilder* tree : {static_cast<TreeLSTMBuilder*>(&nary), static_cast<TreeLSTMBuilder*>(&child_sum)}) {
    ComputationGraph cg;
    tree->new_graph(cg);
    tree->add_input(0, {}, lookup(cg, table, 0u));
    tree->add_input(1, {}, lookup(cg, table, 1u));
    const VectorXf in_order = get(cg, tree->add_input(2, {0, 1}, Expression()));
    const VectorXf swapped = get(cg, tree->add_input(3, {1, 0}, Expression()));
    const bool same = (in_order - swapped).cwiseAbs().maxCoeff() < 1e-6f;
    CHECK(same == (tree == &child_sum));
  }
}

TEST_CASE("a batch of trees of one shape gives each tree's states", "[builders][tree]") {
  ParameterCollection model;
  LookupParameter table = model.add_lookup_parameters(4, {kInput});
  NaryTreeLSTMBuilder nary(2, 2, kInput, kHidden, model);
  ChildSumTreeLSTMBuilder child_sum(2, kInput, kHidden, model);
  const std::vector<std::vector<unsigned>> leaves{{0, 3}, {1, 2}, {2, 0}};
  for (TreeLSTMBuilder* tree : {static_cast<TreeLSTMBuilder*>(&nary), static_cast<TreeLSTMBuilder*>(&child_sum)}) {
    ComputationGraph cg;
    const std::vector<Expression> together = build_tree(*tree, cg, table, leaves);
    std::vector<VectorXf> batched;
    for (const Expression& e : together) batched.push_back(get(cg, e));
    for (unsigned b = 0; b < 2; ++b) {
      ComputationGraph single;
      const std::vector<Expression> alone =
          build_tree(*tree, single, table, {{leaves[0][b]}, {leaves[1][b]}, {leaves[2][b]}});
      for (std::size_t k = 0; k < alone.size(); ++k)
        CHECK((get(single, alone[k]) - batched[k].segment(b * kHidden, kHidden)).cwiseAbs().maxCoeff() < 1e-6f);
    }
  }
}

TEST_CASE("a tree builder's clone shares the parameters and keeps graph state of its own", "[builders][tree]") {
  ParameterCollection model;
  NaryTreeLSTMBuilder nary(2, 2, kInput, kHidden, model);
  ChildSumTreeLSTMBuilder child_sum(1, kInput, kHidden, model);
  LookupParameter table = model.add_lookup_parameters(4, {kInput});
  for (TreeLSTMBuilder* original : {static_cast<TreeLSTMBuilder*>(&nary), static_cast<TreeLSTMBuilder*>(&child_sum)}) {
    const std::unique_ptr<TreeLSTMBuilder> copy = original->clone();
    for (std::size_t l = 0; l < original->layer_parameters().size(); ++l)
      for (std::size_t k = 0; k < original->layer_parameters()[l].size(); ++k)
        CHECK(copy->layer_parameters()[l][k].p == original->layer_parameters()[l][k].p);
    ComputationGraph cg_a, cg_b, cg_ref;
    build_tree(*original, cg_a, table, {{0}, {1}, {2}});
    const std::vector<Expression> from_copy = build_tree(*copy, cg_b, table, {{3}, {2}, {1}});
    const std::vector<Expression> reference = build_tree(*original, cg_ref, table, {{3}, {2}, {1}});
    CHECK(as_vector(cg_b.forward(from_copy.back())) == as_vector(cg_ref.forward(reference.back())));
    CHECK(copy->back().pg == &cg_b);
    CHECK(original->back().pg == &cg_ref);
  }
}

TEST_CASE("a node id whose table memory cannot hold is a runtime error naming add_input", "[builders][tree]") {
  // Ids index a table of the tree's nodes, so one of 2^31 - 1 asks for 2^31 entries (48 GiB).
  ParameterCollection model;
  ChildSumTreeLSTMBuilder tree(1, kInput, kHidden, model);
  ComputationGraph cg;
  tree.new_graph(cg);
  const Expression x = input(cg, Dim({kInput}), {1.f, 2.f, 3.f});
  tree.add_input(0, {}, x);
  std::string what;
  {
    const test_support::AddressSpaceCap cap(1ull << 30);
    if (!cap.skipped().empty()) {
      WARN("skipped: " << cap.skipped());
      return;
    }
    try {
      tree.add_input(std::numeric_limits<int>::max(), {0}, Expression());
    } catch (const std::runtime_error& e) {
      what = e.what();
    }
  }
  CHECK_THAT(what, Catch::Contains("ChildSumTreeLSTMBuilder::add_input: node id 2147483647 needs a table of "
                                   "2147483648 nodes"));
  tree.add_input(1, {0}, Expression());
  CHECK(tree.back().i == tree.get_h(1)[0].i);
}

TEST_CASE("tree builders reject bad nodes and keep the tree", "[builders][tree]") {
  ParameterCollection model;
  NaryTreeLSTMBuilder tree(2, 1, kInput, kHidden, model);
  ComputationGraph cg;
  const Expression x = input(cg, Dim({kInput}), {1.f, 2.f, 3.f});
  CHECK_THROWS_WITH(tree.add_input(0, {}, x), Catch::Contains("new_graph"));
  tree.new_graph(cg);
  CHECK_THROWS_WITH(tree.back(), Catch::Contains("no node"));
  tree.add_input(0, {}, x);
  tree.add_input(1, {}, x);
  CHECK_THROWS_WITH(tree.add_input(2, {0, 7}, Expression()), Catch::Contains("node 7 has not been added"));
  CHECK_THROWS_WITH(tree.add_input(1, {0}, Expression()), Catch::Contains("already added"));
  CHECK_THROWS_WITH(tree.add_input(-1, {0}, Expression()), Catch::Contains("negative"));
  CHECK_THROWS_WITH(tree.add_input(2, {}, Expression()), Catch::Contains("neither an input nor children"));
  CHECK_THROWS_WITH(tree.add_input(2, {0, 1}, zeros(cg, Dim({kInput + 1}))), Catch::Contains("expected {3}"));
  CHECK_THROWS_WITH(tree.add_input(2, {2}, Expression()), Catch::Contains("its own child"));
  CHECK_THROWS_WITH(tree.get_h(5), Catch::Contains("node 5"));
  tree.add_input(2, {0, 1}, Expression());
  CHECK(tree.back().i == tree.get_h(2)[0].i);
  tree.start_new_sequence();
  CHECK_THROWS_AS(tree.get_h(0), std::invalid_argument);
  CHECK_THROWS_AS(NaryTreeLSTMBuilder(0, 1, kInput, kHidden, model), std::invalid_argument);
}
